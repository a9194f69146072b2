import { nonEmptyText, required, textList } from '../args.js';
import { array, object, oneOf, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { STORE_KINDS } from '../server/server-config.js';
import { addCredential } from '../server/server-credentials.js';
import { credentialSummarySchema, identitiesSchema, setupPathArgs, setupPaths } from './server-options.js';

export const serverCredentialAdd = hostOperation({
  name: 'server credential add',
  summary: 'Issue a credential bound to agents (bound identities, see docs/operating.md); its secret goes to a private file',
  details:
    'The secret (its name, a dot, 32 random bytes) is written to <setup root>/credentials/<name>.secret with mode 0600 and never printed: hand that file to its holder, who types the secret at `taskdag login`. Its bearers may act only as the listed agents; orchestrator and recovery only when listed. A taken name is SERVER_SETUP_CONFLICT. Works while the server runs.',
  examples: [
    ['Issue a credential that acts as alice', '$0 server credential add alice --agents alice --config srv/server.json'],
    ['Issue an administrative credential', '$0 server credential add lead --agents orchestrator,recovery --config srv/server.json'],
  ],
  mutates: false,
  args: () => ({
    name: required(nonEmptyText(), 'The credential name: letters, digits, _ and -', { positional: true }),
    agents: required(textList(), 'The agents its bearers may act as (a,b)'),
    ...setupPathArgs,
  }),
  result: () => object({
    credential: credentialSummarySchema(),
    administrative: array(string(), 'The administrative agents it names (orchestrator, recovery)'),
    secret_file: string('The private file holding its secret'),
    identities: identitiesSchema(),
    store: oneOf(STORE_KINDS),
  }),
  run: async ({ cwd, system, clock }, args) => addCredential(system(), setupPaths(cwd, args), { name: args.name, agents: args.agents, now: clock.now() }),
});
