import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { nodeContext } from '../../domain/context.js';
import { nonEmptyText, nonNegativeInteger, optional, required } from '../args.js';
import { graphOperation } from '../define.js';

export const context = graphOperation({
  name: 'context',
  mutates: false,
  args: { id: required(nonEmptyText()), stale_ms: optional(nonNegativeInteger()) },
  run: ({ draft }, args) =>
    nodeContext(draft, draft.requireNode(args.id), draft.now, { agent: draft.agent, staleMs: args.stale_ms ?? DEFAULT_STALE_MS }),
});
