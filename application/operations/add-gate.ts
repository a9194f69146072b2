import { createNode } from '../../domain/creation.js';
import { optional, required, text, textList } from '../args.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs } from './node-fields.js';

export const addGate = graphOperation({
  name: 'add-gate',
  mutates: true,
  args: {
    id: optional(text(), { positional: true }),
    ...commonNodeArgs,
    body: required(text()),
    purpose: required(text()),
    resolution_mode: optional(text()),
    blocked_by: optional(textList()),
    supersedes: optional(text()),
  },
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
