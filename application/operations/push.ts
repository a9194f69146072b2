import { flag, optional } from '../args.js';
import { hostOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { push as pushProject, transferResult } from '../remote/transfer.js';

/** Spec 4.5 `push` (experimental, unsafe): the whole local DAG replaces the server's copy of the same project. */
export const push = hostOperation({
  name: 'push',
  summary: "Replace the server's copy of this project with the local state (experimental; see docs/remote.md)",
  details:
    'Never provisions: run init in the linked checkout first. Without an earlier transfer the server must be pristine; after one, the push is refused with STATE_REVISION_CONFLICT (nothing changes on either side) if the server moved since. --force replaces everything there, claims and log included, and records transfer.push.',
  examples: [
    ['Send the work done offline to the server', '$0 push --as alice'],
    ["Overwrite the server's copy whatever it holds", '$0 push --force --as alice'],
  ],
  mutates: true,
  needsAgent: true,
  args: () => ({ force: optional(flag(), 'Replace the destination whatever it holds', { standalone: true }) }),
  result: () => transferResult(),
  run: async (services, args, agent) => pushProject(services, args.force === true, requireAgent('push', agent)),
});
