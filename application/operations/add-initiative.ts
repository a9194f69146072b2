import { registerInitiative } from '../../domain/initiatives.js';
import { nonEmptyText, optional, required, text } from '../args.js';
import { object, string } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const addInitiative = graphOperation({
  name: 'add-initiative',
  summary: 'Register an initiative; nodes must name a registered one',
  details: 'A duplicate name is ID_CONFLICT.',
  examples: [['Register an initiative', '$0 add-initiative billing --desc "Invoices and payments" --as alice']],
  mutates: true,
  args: () => ({
    name: required(nonEmptyText(), 'The initiative name', { positional: true }),
    desc: optional(text(), 'What the initiative is about'),
  }),
  result: () => object({ initiative: object({ name: string(), desc: string(), created_at: string() }) }),
  run: ({ draft }, args) => ({ initiative: registerInitiative(draft, args.name, args.desc ?? '') }),
});
