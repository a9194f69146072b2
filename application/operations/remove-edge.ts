import { parseEdgeType } from '../../domain/edges.js';
import { edgeSchema } from '../contract/results.js';
import { boolean, object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { edgeArgs } from './edge-args.js';

/** Idempotent: removing an edge that is not there succeeds with `removed: false` and writes nothing. */
export const removeEdge = graphOperation({
  name: 'remove-edge',
  summary: 'Remove exactly one edge; removing an absent edge succeeds with removed: false',
  examples: [['Unblock a task by hand', '$0 remove-edge G-schema T-invoice-api --type BLOCKS --as alice']],
  mutates: true,
  args: edgeArgs,
  result: () => object({ removed: boolean(), edge: edgeSchema() }),
  run: ({ draft }, args) => {
    const edge = { from: args.from, to: args.to, type: parseEdgeType(args.type) };
    const removed = draft.removeEdge(edge);
    if (removed) draft.record({ op: 'remove-edge', node: args.to, edge });
    return { removed, edge };
  },
});
