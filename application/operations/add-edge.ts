import { parseEdgeType } from '../../domain/edges.js';
import { edgeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { edgeArgs } from './edge-args.js';

export const addEdge = graphOperation({
  name: 'add-edge',
  summary: 'Raw escape hatch: add a typed edge between two nodes',
  details: 'BLOCKS goes from blocker to blocked; SUPERSEDES and DERIVED_FROM from the new node to the old one.',
  examples: [['Make a gate block a task', '$0 add-edge G-schema T-invoice-api --type BLOCKS --as alice']],
  mutates: true,
  args: edgeArgs,
  result: () => object({ edge: edgeSchema() }),
  run: ({ draft }, args) => {
    const edge = draft.addEdge({ from: args.from, to: args.to, type: parseEdgeType(args.type) });
    draft.record({ op: 'add-edge', node: args.to, edge });
    return { edge };
  },
});
