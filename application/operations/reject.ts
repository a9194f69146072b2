import { reject as rejectTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { taskSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const reject = graphOperation({
  name: 'reject',
  summary: 'Send a submitted task back to open; the reason goes into the log entry',
  examples: [['Reject with a reason', '$0 reject T-receipts --reason "No test for empty receipts" --as bob']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The submitted task', { positional: true }),
    reason: required(nonEmptyText(), 'Why it goes back (recorded in the log)'),
  }),
  result: () => object({ node: taskSchema() }),
  run: ({ draft }, args) => rejectTask(draft, args.id, args.reason),
});
