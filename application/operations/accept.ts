import { accept as acceptTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const accept = graphOperation({
  name: 'accept',
  mutates: true,
  args: { id: required(nonEmptyText()) },
  run: ({ draft }, args) => acceptTask(draft, args.id),
});
