import { reopen as reopenNode } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const reopen = graphOperation({
  name: 'reopen',
  summary: 'Reopen a done task or a resolved gate (whoever completed it, orchestrator or recovery)',
  examples: [['Reopen a decision', '$0 reopen G-schema-v2 --reason "Requirements changed" --as orchestrator']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The done task or resolved gate', { positional: true }),
    reason: required(nonEmptyText(), 'Why (recorded in the log)'),
  }),
  result: () => object({ node: nodeSchema() }),
  run: ({ draft }, args) => reopenNode(draft, args.id, args.reason),
});
