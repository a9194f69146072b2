import { searchKnowledge } from '../../domain/search.js';
import { flag, nonEmptyText, optional, required } from '../args.js';
import { graphOperation } from '../define.js';

export const search = graphOperation({
  name: 'search',
  mutates: false,
  args: { query: required(nonEmptyText()), all: optional(flag()) },
  run: ({ draft }, args) => searchKnowledge(draft.graph, args.query, args.all ?? false),
});
