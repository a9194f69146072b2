import { nodeType } from '../../domain/model.js';
import { nonEmptyText, required } from '../args.js';
import { nodeSchema, nodeTypeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const show = graphOperation({
  name: 'show',
  summary: 'One node, whole, and its type (task, gate or knowledge)',
  examples: [['Look at a task', '$0 show T-invoice-api']],
  mutates: false,
  args: () => ({ id: required(nonEmptyText(), 'The node', { positional: true }) }),
  result: () => object({ type: nodeTypeSchema(), node: nodeSchema() }),
  run: ({ draft }, args) => {
    const node = draft.requireNode(args.id);
    return { type: nodeType(node), node };
  },
});
