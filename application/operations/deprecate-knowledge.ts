import { deprecateKnowledge as deprecate } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { knowledgeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const deprecateKnowledge = graphOperation({
  name: 'deprecate-knowledge',
  summary: 'Retire a knowledge item: it stops being served as guidance',
  examples: [['Retire guidance', '$0 deprecate-knowledge K-cents --reason "We moved to a money library" --as alice']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The active knowledge item', { positional: true }),
    reason: required(nonEmptyText(), 'Why (stored as deprecation_reason)'),
  }),
  result: () => object({ node: knowledgeSchema() }),
  run: ({ draft }, args) => deprecate(draft, args.id, args.reason),
});
