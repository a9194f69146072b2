import { Command, Option } from 'clipanion';
import path from 'node:path';
import { DomainError } from '../../domain/errors.js';
import type { TaskdagContext } from './context.js';
import { loadServerRuntime } from '../host/server-runtime.js';

export class ServerRunCommand extends Command<TaskdagContext> {
  static override paths = [['server', 'run']];
  static override usage = Command.Usage({
    description: 'Run the server in the foreground (what the systemd unit starts)',
    details:
      'The password comes from TASKDAG_SERVER_PASSWORD in the environment (the unit\'s EnvironmentFile=, or a sourced server.env), never from argv. Prints one JSON line {ok, host, port} once listening; SIGINT or SIGTERM drain in-flight requests and exit 0.',
    examples: [['Start a server by hand with its env file (stop it with Ctrl-C)', "(set -a && . ./srv/server.env && set +a && exec $0 server run srv/server.json)"]],
  });

  configPath = Option.String({ required: false, name: 'config-path' });

  async execute() {
    if (this.configPath === undefined) {
      throw new DomainError('MISSING_FIELD', 'server run needs the path of server.json', { field: 'config_path', argument: '<config-path>' });
    }
    await loadServerRuntime().runServer({ configPath: path.resolve(this.context.cwd, this.configPath), env: this.context.env });
  }
}
