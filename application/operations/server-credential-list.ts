import { array, object } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { listCredentials } from '../server/server-credentials.js';
import { credentialSummarySchema, identitiesSchema, setupPathArgs, setupPaths } from './server-options.js';

export const serverCredentialList = hostOperation({
  name: 'server credential list',
  summary: 'List the credentials of a server: names, agents, creation times (never a secret)',
  examples: [['List the credentials', '$0 server credential list --config srv/server.json']],
  mutates: false,
  args: () => setupPathArgs,
  result: () => object({ identities: identitiesSchema(), credentials: array(credentialSummarySchema()) }),
  run: async ({ cwd, system }, args) => listCredentials(system(), setupPaths(cwd, args)),
});
