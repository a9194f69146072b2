import { cancel as cancelNode } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const cancel = graphOperation({
  name: 'cancel',
  summary: 'Cancel a task (its holder, orchestrator or recovery) or an open gate (orchestrator or recovery)',
  examples: [['Drop a task', '$0 cancel T-receipts --reason "Out of scope" --as orchestrator']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The task or gate', { positional: true }),
    reason: required(nonEmptyText(), 'Why (recorded in the log)'),
  }),
  result: () => object({ node: nodeSchema() }),
  run: ({ draft }, args) => cancelNode(draft, args.id, args.reason),
});
