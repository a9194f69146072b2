import { parseEdgeType } from '../../domain/edges.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const addEdge = graphOperation({
  name: 'add-edge',
  mutates: true,
  args: { from: required(nonEmptyText(), { positional: true }), to: required(nonEmptyText(), { positional: true }), type: required(nonEmptyText()) },
  run: ({ draft }, args) => {
    const edge = draft.addEdge({ from: args.from, to: args.to, type: parseEdgeType(args.type) });
    draft.record({ op: 'add-edge', node: args.to, edge });
    return { edge };
  },
});
