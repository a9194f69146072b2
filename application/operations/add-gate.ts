import { createNode } from '../../domain/creation.js';
import { optional, required, text, textList } from '../args.js';
import { gateSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs } from './node-fields.js';

export const addGate = graphOperation({
  name: 'add-gate',
  summary: 'Create a gate: a decision that work can wait on',
  details: '`--supersedes OLD` replaces an open or resolved gate: OLD becomes `superseded` and its blockers move to the new gate.',
  examples: [
    ['A decision to make', '$0 add-gate G-schema --initiative billing --title "Choose schema" --body "Two candidates" --purpose "Pick one" --as alice'],
    [
      'Replace a decision',
      '$0 add-gate G-schema-v2 --initiative billing --title "Choose schema v2" --body "Revisited" --purpose "Pick again" --supersedes G-schema --as alice',
    ],
  ],
  mutates: true,
  args: () => ({
    id: optional(text(), 'The new id (default: G- and 8 hex characters)', { positional: true }),
    ...commonNodeArgs(),
    body: required(text(), 'What is to be decided'),
    purpose: required(text(), 'Why the decision is needed'),
    resolution_mode: optional(text(), 'How it gets decided'),
    blocked_by: optional(textList(), 'Blocker ids', { placeholder: 'id,id' }),
    supersedes: optional(text(), 'The gate this one replaces', { placeholder: 'id' }),
  }),
  result: () => object({ node: gateSchema() }),
  run: ({ draft, ids }, args) => {
    const node = createNode(
      draft,
      {
        id: args.id,
        type: 'gate',
        common: commonFields(args),
        specific: { purpose: args.purpose, resolution_mode: args.resolution_mode ?? null },
        links: { blocked_by: args.blocked_by, derived_from: args.derived_from, supersedes: args.supersedes },
        allowUnregisteredInitiative: args.allow_unregistered_initiative ?? false,
        op: 'add-gate',
      },
      () => ids.nodeSuffix(),
    );
    return { node };
  },
});
