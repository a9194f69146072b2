import { initiativesReport } from '../../domain/initiative-report.js';
import { flag, optional } from '../args.js';
import { array, boolean, integer, object, string } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const initiatives = graphOperation({
  name: 'initiatives',
  summary: 'Registered initiatives with their node counts, and nodes of unregistered initiatives',
  examples: [
    ['Initiatives that hold work', '$0 initiatives'],
    ['Empty ones too', '$0 initiatives --all'],
  ],
  mutates: false,
  args: () => ({ all: optional(flag(), 'Include initiatives without nodes', { standalone: true }) }),
  result: () => object({
    initiatives: array(
      object({ name: string(), desc: string(), created_at: string(), nodes: integer(), tasks: integer(), knowledge: integer() }),
      'By name',
    ),
    unregistered: object({ nodes: integer('Nodes whose initiative was never registered'), values: array(string()) }),
    all: boolean(),
  }),
  run: ({ draft }, args) => initiativesReport(draft.graph, args.all ?? false),
});
