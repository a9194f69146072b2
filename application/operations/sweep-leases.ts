import { sweepLeases as sweep } from '../../domain/lease.js';
import { array, integer, nullable, object, string, lazily } from '../contract/schema.js';
import { graphOperation } from '../define.js';

const sweptSchema = lazily(() => object({
  id: string('The task, back in the pool'),
  by: string('Who held it'),
  token: nullable(integer('The fencing token of the released claim: its holder is now refused with CLAIM_FENCED')),
  expires_at: string('When its lease ended'),
  overdue_ms: integer('How long before this sweep it ended'),
}));

/** Releases every claim whose lease has ended, in one commit (docs/agents.md, "Leases"). */
export const sweepLeases = graphOperation({
  name: 'sweep-leases',
  summary: 'Release every claim whose lease has ended (recovery or orchestrator), one log entry each',
  details:
    'One atomic commit; each released claim gets a `lease-expired` log entry naming its holder and token. Claims without a lease never expire (the spec\'s STALE_CLAIM alerts still report them). A server can run this on a schedule (server.json `leaseSweepMs`).',
  examples: [['Release expired leases', '$0 sweep-leases --as recovery']],
  mutates: true,
  args: () => ({}),
  result: () => object({ released: array(sweptSchema(), 'The claims released, earliest expiry first') }),
  run: ({ draft }) => sweep(draft),
});
