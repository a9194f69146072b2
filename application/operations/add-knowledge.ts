import { createNode } from '../../domain/creation.js';
import { DomainError } from '../../domain/errors.js';
import { optional, required, text } from '../args.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs, knowledgeScopeArgs, scopeFrom } from './node-fields.js';

export const addKnowledge = graphOperation({
  name: 'add-knowledge',
  mutates: true,
  args: {
    id: optional(text(), { positional: true }),
    ...commonNodeArgs,
    body: required(text()),
    ...knowledgeScopeArgs,
    knowledge_type: optional(text()),
    mitigation: optional(text()),
    supersedes: optional(text()),
  },
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
