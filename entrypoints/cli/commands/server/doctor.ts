import { Command, Option } from 'clipanion';
import path from 'node:path';
import { serverDoctor } from '../../../../application/server/server-doctor.js';
import type { TaskdagContext } from '../../context.js';
import { bool } from '../../flags.js';
import { DEFAULT_SERVER_ROOT, serverHostPorts } from '../../server-host.js';

export class ServerDoctorCommand extends Command<TaskdagContext> {
  static override paths = [['server', 'doctor']];
  static override usage = Command.Usage({
    description: 'Check a server setup before starting it (never starts it, locks or creates anything)',
    details: 'Each finding has a code, a severity and its fix. Errors fail with SERVER_PREFLIGHT_FAILED; without --strict a busy port and a missing UI build are warnings.',
    examples: [['Check a setup, including its port', '$0 server doctor --config srv/server.json --probe-bind']],
  });

  config = Option.String('--config', { description: `server.json (default ${DEFAULT_SERVER_ROOT}/server.json)` });
  envFile = Option.String('--env-file', { description: 'server.env (default: beside the config)' });
  probeBind = Option.String('--probe-bind', { tolerateBoolean: true, description: 'Briefly open the configured address' });
  strict = Option.String('--strict', { tolerateBoolean: true, description: 'Bind and missing-UI warnings become failures' });

  async execute() {
    const configPath = path.resolve(this.context.cwd, this.config ?? path.join(DEFAULT_SERVER_ROOT, 'server.json'));
    const envPath = path.resolve(this.context.cwd, this.envFile ?? path.join(path.dirname(configPath), 'server.env'));
    const probeBind = bool('--probe-bind', this.probeBind) ?? false;
    this.context.emit(await serverDoctor(serverHostPorts(), { configPath, envPath, probeBind, strict: bool('--strict', this.strict) ?? false }));
  }
}
