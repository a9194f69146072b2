import { flag, optional } from '../args.js';
import { array, object, optional as optionalProperty, record, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { serverSetup as setUpServer } from '../server/server-setup.js';
import { serverDoctorResultSchema, serverInitArgs, serverInitInput, serverInitResultSchema } from './server-options.js';

export const serverSetup = hostOperation({
  name: 'server setup',
  summary: 'server init, then the preflight, then the exact commands left to install, start and log in',
  details:
    'Takes the flags of `server init` (but not --dry-run) and `--strict`. Runs the preflight with a bind probe over the files it wrote; fails with SERVER_PREFLIGHT_FAILED if it finds an error. It never installs, enables or starts the unit: `next_steps` lists those commands.',
  examples: [['Set up a server started by hand (a systemd one without --unit none)', '$0 server setup --root srv --unit none --port 0']],
  mutates: false,
  args: () => ({ ...serverInitArgs, strict: optional(flag(), 'Treat bind and missing-UI warnings as failures', { standalone: true }) }),
  result: () => object({
    init: serverInitResultSchema(),
    doctor: serverDoctorResultSchema(),
    next_steps: array(string(), 'The commands that remain, in order: ownership, install, enable and start, then log in'),
    placeholders: optionalProperty(record(string('What to put there'), 'What replaces each <placeholder> of next_steps: <port> with port 0, <this-host> with a wildcard host, <name> and <agents> with bound identities')),
  }),
  run: async ({ cwd, system }, args) => setUpServer(system(), { ...serverInitInput(cwd, args), strict: args.strict ?? false }),
});
