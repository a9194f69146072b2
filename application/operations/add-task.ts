import { createNode } from '../../domain/creation.js';
import { MAX_PRIORITY, MIN_PRIORITY } from '../../domain/ranking.js';
import { integerIn, optional, required, text, textList } from '../args.js';
import { taskSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs } from './node-fields.js';

export const addTask = graphOperation({
  name: 'add-task',
  summary: 'Create a task',
  details:
    '`--blocked-by` is required: pass `--blocked-by ""` when the task has no blockers. Without an id the task gets `T-` and 8 hex characters. Tasks are never superseded (only gates and knowledge are): cancel one and create its successor instead.',
  examples: [
    [
      'A task with no blockers',
      '$0 add-task T-invoice-schema --initiative billing --title "Draft invoice schema" --body "Fields and types" --acceptance "Schema reviewed" --blocked-by "" --as alice',
    ],
    [
      'A task waiting on another, with tags and metadata',
      '$0 add-task T-invoice-api --initiative billing --title "Invoice API" --body "REST endpoints" --acceptance "Tests pass" --blocked-by T-invoice-schema --tags api,backend --meta \'{"points":3}\' --as alice',
    ],
    [
      'An urgent task, ranked first by next',
      '$0 add-task T-invoice-fix --initiative billing --title "Fix rounding" --body "Totals off by a cent" --acceptance "Totals match" --blocked-by "" --priority 0 --as alice',
    ],
  ],
  mutates: true,
  args: () => ({
    id: optional(text(), 'The new id (default: T- and 8 hex characters)', { positional: true }),
    ...commonNodeArgs(),
    body: required(text(), 'What the work is'),
    acceptance: required(text(), 'How a reviewer knows it is done'),
    definition: optional(text(), 'Definition of the work'),
    blocked_by: required(textList(), 'Blocker ids; empty for none', { placeholder: 'id,id' }),
    priority: optional(integerIn(MIN_PRIORITY, MAX_PRIORITY), '0 (most urgent) to 4 (least); without it the task ranks at 2 for next'),
  }),
  result: () => object({ node: taskSchema() }),
  run: ({ draft, ids }, args) => {
    const node = createNode(
      draft,
      {
        id: args.id,
        type: 'task',
        common: commonFields(args),
        specific: { acceptance: args.acceptance, definition: args.definition ?? null, ...(args.priority === undefined ? {} : { priority: args.priority }) },
        links: { blocked_by: args.blocked_by, derived_from: args.derived_from },
        allowUnregisteredInitiative: args.allow_unregistered_initiative ?? false,
        op: 'add-task',
      },
      () => ids.nodeSuffix(),
    );
    return { node };
  },
});
