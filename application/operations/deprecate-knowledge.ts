import { deprecateKnowledge as deprecate } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const deprecateKnowledge = graphOperation({
  name: 'deprecate-knowledge',
  mutates: true,
  args: { id: required(nonEmptyText()), reason: required(nonEmptyText()) },
  run: ({ draft }, args) => deprecate(draft, args.id, args.reason),
});
