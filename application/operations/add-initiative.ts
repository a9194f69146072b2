import { registerInitiative } from '../../domain/initiatives.js';
import { nonEmptyText, optional, required, text } from '../args.js';
import { graphOperation } from '../define.js';

export const addInitiative = graphOperation({
  name: 'add-initiative',
  mutates: true,
  args: { name: required(nonEmptyText(), { positional: true }), desc: optional(text()) },
  run: ({ draft }, args) => ({ initiative: registerInitiative(draft, args.name, args.desc ?? '') }),
});
