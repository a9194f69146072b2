import { reject as rejectTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const reject = graphOperation({
  name: 'reject',
  mutates: true,
  args: { id: required(nonEmptyText()), reason: required(nonEmptyText()) },
  run: ({ draft }, args) => rejectTask(draft, args.id, args.reason),
});
