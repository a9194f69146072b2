import { createNode } from '../../domain/creation.js';
import { DomainError } from '../../domain/errors.js';
import { optional, required, text } from '../args.js';
import { knowledgeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs, knowledgeScopeArgs, scopeFrom } from './node-fields.js';

export const addKnowledge = graphOperation({
  name: 'add-knowledge',
  summary: 'Record reusable guidance, delivered to the work its scope matches',
  details: 'At least one of `--scope-domains`, `--scope-initiatives`, `--scope-tags`, `--scope-node-ids` is required.',
  examples: [
    [
      'Guidance for all backend work',
      '$0 add-knowledge K-cents --initiative billing --title "Money is integer cents" --body "Never floats" --scope-domains backend --knowledge-type pitfall --mitigation "Use bigint cents" --as alice',
    ],
  ],
  mutates: true,
  args: () => ({
    id: optional(text(), 'The new id (default: K- and 8 hex characters)', { positional: true }),
    ...commonNodeArgs(),
    body: required(text(), 'The guidance'),
    ...knowledgeScopeArgs(),
    knowledge_type: optional(text(), 'Kind of guidance, e.g. pitfall'),
    mitigation: optional(text(), 'What to do about it'),
    supersedes: optional(text(), 'The knowledge this one replaces (it is deprecated)', { placeholder: 'id' }),
  }),
  result: () => object({ node: knowledgeSchema() }),
  run: ({ draft, ids }, args) => {
    const scope = scopeFrom(args);
    if (Object.values(scope).every((list) => list.length === 0)) {
      throw new DomainError(
        'MISSING_FIELD',
        'add-knowledge requires a scope: at least one of --scope-domains, --scope-initiatives, --scope-tags, --scope-node-ids',
        { operation: 'add-knowledge', field: 'scope', flags: ['--scope-domains', '--scope-initiatives', '--scope-tags', '--scope-node-ids'] },
      );
    }
    const node = createNode(
      draft,
      {
        id: args.id,
        type: 'knowledge',
        common: commonFields(args),
        specific: { scope, knowledge_type: args.knowledge_type ?? null, mitigation: args.mitigation ?? null },
        links: { derived_from: args.derived_from, supersedes: args.supersedes },
        allowUnregisteredInitiative: args.allow_unregistered_initiative ?? false,
        op: 'add-knowledge',
      },
      () => ids.nodeSuffix(),
    );
    return { node };
  },
});
