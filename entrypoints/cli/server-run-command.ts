import { Command, Option } from 'clipanion';
import path from 'node:path';
import { parseArgs, required, text } from '../../application/args.js';
import type { TaskdagContext } from './context.js';
import { loadServerRuntime } from '../host/server-runtime.js';
import { usageOf, type CommandDeclaration } from './declared-command.js';

const args = { config_path: required(text(), 'Path of the server.json that server init wrote', { positional: true }) };

export class ServerRunCommand extends Command<TaskdagContext> {
  static readonly declaration: CommandDeclaration = {
    name: 'server run',
    summary: 'Run the server in the foreground (what the systemd unit starts)',
    details:
      'The password comes from TASKDAG_SERVER_PASSWORD in the environment (the unit\'s EnvironmentFile=, or a sourced server.env), never from argv. Prints one JSON line {ok, host, port} once listening; SIGINT or SIGTERM drain in-flight requests and exit 0.',
    examples: [['Start a server by hand with its env file (stop it with Ctrl-C)', "(set -a && . ./srv/server.env && set +a && exec $0 server run srv/server.json)"]],
    args,
    needsAgent: false,
  };
  static override paths = [['server', 'run']];
  static override usage = usageOf(ServerRunCommand.declaration);

  configPath = Option.String({ required: false, name: 'config-path' });

  async execute() {
    const { config_path } = parseArgs(ServerRunCommand.declaration.name, { config_path: this.configPath }, args);
    await loadServerRuntime().runServer({ configPath: path.resolve(this.context.cwd, config_path), env: this.context.env });
  }
}
