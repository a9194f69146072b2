import { flag, optional } from '../args.js';
import { hostOperation } from '../define.js';
import { serverInit as initServer } from '../server/server-init.js';
import { serverInitArgs, serverInitInput, serverInitResultSchema } from './server-options.js';

export const serverInit = hostOperation({
  name: 'server init',
  summary: 'Write the server configuration, its secret and a systemd unit (see docs/operating.md)',
  details:
    'Files are written with mode 0600 and directories with 0700. A re-run leaves matching files untouched (one that others may read is set back to 0600) and never rotates the password; an existing valid server.env is adopted as it is. The unit runs as --service-user, or the system user taskdag, never root; the commands that create that user and give it its files are printed, never run. Nothing is installed, enabled or started.',
  examples: [
    ['See what would be written for a server started by hand', '$0 server init --root srv --unit none --port 0 --dry-run'],
    ['Write its files (a systemd unit too, without --unit none)', '$0 server init --root srv --unit none --port 0'],
    ['Rotate the password (stop the server first)', '$0 server init --root srv --unit none --rotate-password'],
    ['Keep projects in PostgreSQL (then put TASKDAG_DATABASE_URL in server.env, see docs/scaling.md)', '$0 server init --root srv-pg --unit none --port 0 --store postgresql'],
  ],
  mutates: false,
  args: () => ({ ...serverInitArgs, dry_run: optional(flag(), 'Report files and actions; write nothing', { standalone: true }) }),
  result: () => serverInitResultSchema(),
  run: async ({ cwd, system }, args) => initServer(system(), { ...serverInitInput(cwd, args), dryRun: args.dry_run ?? false }),
});
