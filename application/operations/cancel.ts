import { cancel as cancelNode } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const cancel = graphOperation({
  name: 'cancel',
  mutates: true,
  args: { id: required(nonEmptyText()), reason: required(nonEmptyText()) },
  run: ({ draft }, args) => cancelNode(draft, args.id, args.reason),
});
