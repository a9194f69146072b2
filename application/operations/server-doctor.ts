import { flag, nonEmptyText, optional } from '../args.js';
import { hostOperation } from '../define.js';
import { joinPath, parentOf } from '../server/posix-path.js';
import { serverDoctor as checkServer } from '../server/server-doctor.js';
import { absolute, DEFAULT_SERVER_ROOT, serverDoctorResultSchema } from './server-options.js';

export const serverDoctor = hostOperation({
  name: 'server doctor',
  summary: 'Check a server setup before starting it (never starts it, locks or creates anything)',
  details:
    'Each finding has a code, a severity and its fix. Errors fail with SERVER_PREFLIGHT_FAILED; without --strict a busy port and a missing UI build are warnings.',
  examples: [['Check a setup, including its port', '$0 server doctor --config srv/server.json --probe-bind']],
  mutates: false,
  args: () => ({
    config: optional(nonEmptyText(), `server.json (default ${DEFAULT_SERVER_ROOT}/server.json)`),
    env_file: optional(nonEmptyText(), 'server.env (default: beside the config)'),
    probe_bind: optional(flag(), 'Briefly open the configured address', { standalone: true }),
    strict: optional(flag(), 'Bind and missing-UI warnings become failures', { standalone: true }),
  }),
  result: () => serverDoctorResultSchema(),
  run: async ({ cwd, system }, args) => {
    const configPath = absolute(cwd, args.config) ?? joinPath(DEFAULT_SERVER_ROOT, 'server.json');
    const envPath = absolute(cwd, args.env_file) ?? joinPath(parentOf(configPath), 'server.env');
    return checkServer(system(), { configPath, envPath, probeBind: args.probe_bind ?? false, strict: args.strict ?? false });
  },
});
