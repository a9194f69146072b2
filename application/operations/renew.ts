import { leaseMillis } from '../../domain/fencing.js';
import { renew as renewLease } from '../../domain/lease.js';
import { nonEmptyText, required } from '../args.js';
import { taskSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { claimTokenArg, leaseArg } from './lease-args.js';

/** The holder's heartbeat: its claim's lease runs again from now (docs/agents.md, "Leases"). */
export const renew = graphOperation({
  name: 'renew',
  summary: 'Renew the lease on a task you hold: it runs again from now',
  details:
    'Only the holder renews. Without `--lease` the lease keeps its length; `--lease` sets a new one (or puts one on a claim taken without). With `--claim-token` it applies only while that claim is still yours (else CLAIM_FENCED: the lease was swept, or the task released or taken again).',
  examples: [['Renew for 30 minutes from now', '$0 renew T-invoice-schema --lease 30m --as alice']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The task you hold', { positional: true }),
    lease: leaseArg(),
    claim_token: claimTokenArg(),
  }),
  result: () => object({ node: taskSchema() }),
  run: ({ draft }, args) => renewLease(draft, args.id, { leaseMs: args.lease === undefined ? undefined : leaseMillis(args.lease), token: args.claim_token }),
});
