import { Command, Option } from 'clipanion';
import { serverSetup } from '../../../../application/server/server-setup.js';
import { bool } from '../../flags.js';
import { serverHostPorts } from '../../server-host.js';
import { ServerInitFlags } from './init-flags.js';

export class ServerSetupCommand extends ServerInitFlags {
  static override paths = [['server', 'setup']];
  static override usage = Command.Usage({
    description: 'server init, then the preflight, then the exact commands left to install, start and log in',
    details:
      'Takes the flags of `server init` (but not --dry-run) and `--strict`. Runs the preflight with a bind probe over the files it wrote; fails with SERVER_PREFLIGHT_FAILED if it finds an error. It never installs, enables or starts the unit: `next_steps` lists those commands.',
    examples: [['Set up a server started by hand (a systemd one without --unit none)', '$0 server setup --root srv --unit none --port 0']],
  });

  strict = Option.String('--strict', { tolerateBoolean: true, description: 'Treat bind and missing-UI warnings as failures' });

  async execute() {
    this.context.emit(await serverSetup(serverHostPorts(), { ...this.initInput(), strict: bool('--strict', this.strict) ?? false }));
  }
}
