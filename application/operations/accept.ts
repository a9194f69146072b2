import { accept as acceptTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { newlyReadySchema, taskSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const accept = graphOperation({
  name: 'accept',
  summary: 'Accept a submitted task: it is done, and the tasks it unblocked are listed in newly_ready',
  examples: [['Accept after review', '$0 accept T-refunds --as bob']],
  mutates: true,
  args: () => ({ id: required(nonEmptyText(), 'The submitted task', { positional: true }) }),
  result: () => object({ node: taskSchema(), newly_ready: newlyReadySchema() }),
  run: ({ draft }, args) => acceptTask(draft, args.id),
});
