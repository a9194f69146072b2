import { submit as submitTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const submit = graphOperation({
  name: 'submit',
  mutates: true,
  args: { id: required(nonEmptyText()), note: required(nonEmptyText()) },
  run: ({ draft }, args) => submitTask(draft, args.id, args.note),
});
