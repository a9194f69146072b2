import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { nodeContext } from '../../domain/context.js';
import { nonEmptyText, nonNegativeInteger, optional, required } from '../args.js';
import { contextSchema } from '../contract/results.js';
import { graphOperation } from '../define.js';
import { withPluginsAllowed } from '../policy.js';

export const context = graphOperation({
  name: 'context',
  summary: 'Everything to work on one node: blockers, matching knowledge, alerts and the actions you may take',
  details: '`allowed_actions` is computed for the agent given by `--as` (or TASKDAG_AGENT); it is empty without one.',
  examples: [
    ['Before starting a task', '$0 context T-invoice-api --as alice'],
    ['Claims older than an hour count as stale', '$0 context T-invoice-api --stale-ms 3600000 --as alice'],
  ],
  mutates: false,
  usesAgent: true,
  args: () => ({
    id: required(nonEmptyText(), 'The node', { positional: true }),
    stale_ms: optional(nonNegativeInteger(), 'Claim age that counts as stale, in ms (default two hours)'),
  }),
  result: () => contextSchema(),
  run: (context, args) => {
    const { draft } = context;
    return withPluginsAllowed(context, nodeContext(draft, draft.requireNode(args.id), draft.now, { agent: draft.agent, staleMs: args.stale_ms ?? DEFAULT_STALE_MS }));
  },
});
