import { nonEmptyText, required } from '../args.js';
import { boolean, object, string } from '../contract/schema.js';
import { hostOperation } from '../define.js';
import { removeCredential } from '../server/server-credentials.js';
import { setupPathArgs, setupPaths } from './server-options.js';

export const serverCredentialRemove = hostOperation({
  name: 'server credential remove',
  summary: 'Remove a credential: every bearer it opened fails from the next request on',
  details: 'Removing a credential that does not exist succeeds with `removed: false`. Works while the server runs.',
  examples: [['Remove a credential', '$0 server credential remove lead --config srv/server.json']],
  mutates: false,
  args: () => ({ name: required(nonEmptyText(), 'The credential name', { positional: true }), ...setupPathArgs }),
  result: () => object({ name: string(), removed: boolean('Whether there was such a credential') }),
  run: async ({ cwd, system }, args) => removeCredential(system(), setupPaths(cwd, args), args.name),
});
