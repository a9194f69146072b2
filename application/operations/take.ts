import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { nodeContext } from '../../domain/context.js';
import { take as takeTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

/** Claims a ready task; the result carries the same context `context <id>` prints, as of after the claim. */
export const take = graphOperation({
  name: 'take',
  mutates: true,
  args: { id: required(nonEmptyText()) },
  run: ({ draft }, args) => {
    const { node, freshly_claimed } = takeTask(draft, args.id);
    return { node, context: nodeContext(draft, node, draft.now, { agent: draft.agent, staleMs: DEFAULT_STALE_MS }), freshly_claimed };
  },
});
