import { addNote as appendNote } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const addNote = graphOperation({
  name: 'add-note',
  mutates: true,
  args: { id: required(nonEmptyText()), text: required(nonEmptyText()) },
  run: ({ draft }, args) => appendNote(draft, args.id, args.text),
});
