import { nonEmptyText, required } from '../args.js';

/** An edge named the way add-edge and remove-edge take it: `<from> <to> --type T` (built when their arguments are). */
export const edgeArgs = () => ({
  from: required(nonEmptyText(), 'The blocker, the new node (SUPERSEDES) or the derived node', { positional: true }),
  to: required(nonEmptyText(), 'The blocked, the old or the source node', { positional: true }),
  type: required(nonEmptyText(), 'BLOCKS, SUPERSEDES or DERIVED_FROM', { placeholder: 'BLOCKS|SUPERSEDES|DERIVED_FROM' }),
});
