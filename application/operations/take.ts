import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { nodeContext } from '../../domain/context.js';
import { leaseMillis } from '../../domain/fencing.js';
import { take as takeTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { contextSchema, taskSchema } from '../contract/results.js';
import { boolean, object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { withPluginsAllowed } from '../policy.js';
import { leaseArg } from './lease-args.js';

/**
 * Claims a ready task. The claim is decided under the lock; the context (what `context <id>`
 * prints, as of the claim) is built after the commit, outside it, so readers wait less.
 */
export const take = graphOperation({
  name: 'take',
  summary: 'Claim a ready task; answers the task, its context and whether this call claimed it',
  details:
    "Taking a task you already hold succeeds with `freshly_claimed: false` (and renews its lease, if it has one). Another agent's task fails with ALREADY_CLAIMED, except for `orchestrator`, who takes it over. A task that is not ready fails with NOT_READY. `--lease 15m` puts a lease on the claim: renew it (`renew`) before it ends, or `recovery` may sweep it (`sweep-leases`). The claim's `token` is its fencing token: pass it as `--claim-token` to submit, release and renew.",
  examples: [
    ['Claim a task', '$0 take T-invoice-schema --as alice'],
    ['Claim a task under a 15-minute lease', '$0 take T-invoice-schema --lease 15m --as alice'],
  ],
  mutates: true,
  args: () => ({ id: required(nonEmptyText(), 'The ready task to claim', { positional: true }), lease: leaseArg() }),
  result: () => object({ node: taskSchema(), context: contextSchema(), freshly_claimed: boolean('Whether this call made the claim') }),
  run: ({ draft }, args) => takeTask(draft, args.id, args.lease === undefined ? undefined : leaseMillis(args.lease)),
  finish: (context, { node, freshly_claimed }) => ({
    node,
    context: withPluginsAllowed(context, nodeContext(context.draft, node, context.draft.now, { agent: context.draft.agent, staleMs: DEFAULT_STALE_MS })),
    freshly_claimed,
  }),
});
