import { createNode } from '../../domain/creation.js';
import { DomainError } from '../../domain/errors.js';
import { optional, required, text, textList } from '../args.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs } from './node-fields.js';

export const addTask = graphOperation({
  name: 'add-task',
  mutates: true,
  args: {
    id: optional(text(), { positional: true }),
    ...commonNodeArgs,
    body: required(text()),
    acceptance: required(text()),
    definition: optional(text()),
    blocked_by: required(textList()),
    supersedes: optional(text()),
  },
  run: ({ draft, ids }, args) => {
    if (args.supersedes !== undefined) {
      throw new DomainError('INVALID_ARGUMENT', '--supersedes is not allowed on tasks: only gates and knowledge are superseded', {
        field: 'supersedes',
        flag: '--supersedes',
      });
    }
    const node = createNode(
      draft,
      {
        id: args.id,
        type: 'task',
        common: commonFields(args),
        specific: { acceptance: args.acceptance, definition: args.definition ?? null },
        links: { blocked_by: args.blocked_by, derived_from: args.derived_from },
        allowUnregisteredInitiative: args.allow_unregistered_initiative ?? false,
        op: 'add-task',
      },
      () => ids.nodeSuffix(),
    );
    return { node };
  },
});
