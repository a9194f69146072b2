import { parseEdgeType } from '../../domain/edges.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

/** Idempotent: removing an edge that is not there succeeds with `removed: false` and writes nothing. */
export const removeEdge = graphOperation({
  name: 'remove-edge',
  mutates: true,
  args: { from: required(nonEmptyText(), { positional: true }), to: required(nonEmptyText(), { positional: true }), type: required(nonEmptyText()) },
  run: ({ draft }, args) => {
    const edge = { from: args.from, to: args.to, type: parseEdgeType(args.type) };
    const removed = draft.removeEdge(edge);
    if (removed) draft.record({ op: 'remove-edge', node: args.to, edge });
    return { removed, edge };
  },
});
