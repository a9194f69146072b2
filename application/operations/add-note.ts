import { addNote as appendNote } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const addNote = graphOperation({
  name: 'add-note',
  summary: 'Append a timestamped note to a node',
  examples: [['Leave a note', '$0 add-note T-invoice-api Waiting on G-schema before starting --as alice']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The node', { positional: true }),
    text: required(nonEmptyText(), 'The note: every word after the id', { positional: 'rest' }),
  }),
  result: () => object({ node: nodeSchema() }),
  run: ({ draft }, args) => appendNote(draft, args.id, args.text),
});
