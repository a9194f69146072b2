import { reopen as reopenNode } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const reopen = graphOperation({
  name: 'reopen',
  mutates: true,
  args: { id: required(nonEmptyText()), reason: required(nonEmptyText()) },
  run: ({ draft }, args) => reopenNode(draft, args.id, args.reason),
});
