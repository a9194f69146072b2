import { searchKnowledge } from '../../domain/search.js';
import { flag, nonEmptyText, optional, required } from '../args.js';
import { searchMatchSchema } from '../contract/results.js';
import { array, integer, object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const search = graphOperation({
  name: 'search',
  summary: 'Find knowledge by a case-insensitive substring of its id, title, body, mitigation, domain, tags, refs or meta',
  examples: [
    ['Active knowledge about money', '$0 search cents'],
    ['Deprecated knowledge too', '$0 search "integer cents" --all'],
  ],
  mutates: false,
  args: () => ({
    query: required(nonEmptyText(), 'The text to look for', { positional: true }),
    all: optional(flag(), 'Include deprecated knowledge', { standalone: true }),
  }),
  result: () => object({ matches: array(searchMatchSchema(), 'Earlier-field matches first, then by id'), count: integer() }),
  run: ({ draft }, args) => searchKnowledge(draft, args.query, args.all ?? false),
});
