import { Command, Option } from 'clipanion';
import { serverInit } from '../../../../application/server/server-init.js';
import { bool } from '../../flags.js';
import { serverHostPorts } from '../../server-host.js';
import { ServerInitFlags } from './init-flags.js';

export class ServerInitCommand extends ServerInitFlags {
  static override paths = [['server', 'init']];
  static override usage = Command.Usage({
    description: 'Write the server configuration, its secret and a systemd unit (see docs/operating.md)',
    details:
      'Files are written with mode 0600 and directories with 0700. A re-run leaves matching files untouched and never rotates the password; an existing valid server.env is adopted as it is. Nothing is installed, enabled or started.',
    examples: [
      ['See what would be written for a server started by hand', '$0 server init --root srv --unit none --port 0 --dry-run'],
      ['Write its files (a systemd unit too, without --unit none)', '$0 server init --root srv --unit none --port 0'],
      ['Rotate the password (stop the server first)', '$0 server init --root srv --unit none --rotate-password'],
    ],
  });

  dryRun = Option.String('--dry-run', { tolerateBoolean: true, description: 'Report files and actions; write nothing' });

  async execute() {
    this.context.emit(await serverInit(serverHostPorts(), { ...this.initInput(), dryRun: bool('--dry-run', this.dryRun) ?? false }));
  }
}
