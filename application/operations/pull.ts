import { flag, optional } from '../args.js';
import { hostOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { pull as pullProject, transferResult } from '../remote/transfer.js';

/** Spec 4.5 `pull` (experimental, unsafe): the server's whole DAG replaces the local state of the same project. */
export const pull = hostOperation({
  name: 'pull',
  summary: "Replace the local state of this project with the server's (experimental; see docs/remote.md)",
  details:
    'Without an earlier transfer the local project must be absent or pristine; after one, the pull is refused with STATE_REVISION_CONFLICT (nothing changes on either side) if the local state moved since. --force replaces the local state whole and records transfer.pull.',
  examples: [
    ['Take the latest server state before working offline', '$0 pull --as alice'],
    ["Overwrite the local state with the server's", '$0 pull --force --as alice'],
  ],
  mutates: true,
  needsAgent: true,
  args: () => ({ force: optional(flag(), 'Replace the destination whatever it holds', { standalone: true }) }),
  result: () => transferResult(),
  run: async (services, args, agent) => pullProject(services, args.force === true, requireAgent('pull', agent)),
});
