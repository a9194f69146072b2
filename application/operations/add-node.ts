import { createNode } from '../../domain/creation.js';
import { DomainError } from '../../domain/errors.js';
import type { GateNode, KnowledgeNode, NodeType, TaskNode } from '../../domain/model.js';
import { flag, nonEmptyText, oneOf, optional, required, text, textList } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { commonFields, commonNodeArgs, knowledgeScopeArgs, presentFields, scopeFrom } from './node-fields.js';

const FIELDS_OF: Record<NodeType, readonly string[]> = {
  task: ['definition', 'acceptance', 'backlog'],
  gate: ['purpose', 'resolution_mode', 'choice', 'rationale'],
  knowledge: ['knowledge_type', 'mitigation', 'scope_domains', 'scope_initiatives', 'scope_tags', 'scope_node_ids'],
};

/**
 * The raw escape hatch: any node, with any stored status its type allows. Fields that belong to
 * another node type are refused rather than silently dropped.
 */
export const addNode = graphOperation({
  name: 'add-node',
  summary: 'Raw escape hatch: create any node with any stored status its type allows',
  details: 'A flag of another node type is INVALID_ARGUMENT; a derived status (ready, blocked, backlog) is INVALID_STATUS.',
  examples: [
    ['A task that is already done', '$0 add-node T-legacy --kind resolvable --subkind task --title "Imported" --initiative billing --status done --as orchestrator'],
    ['A resolved gate', '$0 add-node G-old --kind resolvable --subkind gate --title "Decided" --initiative billing --choice A --rationale "Cheaper" --as orchestrator'],
    [
      'A task already in progress (claimed by its creator)',
      '$0 add-node T-refunds --kind resolvable --subkind task --title "Refund endpoint" --initiative billing --status in_progress --as alice',
    ],
    ['Another one', '$0 add-node T-receipts --kind resolvable --subkind task --title "Receipts" --initiative billing --status in_progress --as alice'],
  ],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The new id', { positional: true }),
    kind: required(oneOf(['resolvable', 'knowledge'] as const), 'resolvable or knowledge'),
    subkind: optional(oneOf(['task', 'gate'] as const), 'task or gate (required for resolvable)'),
    ...commonNodeArgs(),
    status: optional(nonEmptyText(), 'Stored status'),
    definition: optional(text(), 'Tasks: definition of the work'),
    acceptance: optional(text(), 'Tasks: how a reviewer knows it is done'),
    backlog: optional(flag(), 'Tasks: true keeps it out of the ready pool'),
    purpose: optional(text(), 'Gates: why the decision is needed'),
    resolution_mode: optional(text(), 'Gates: how it gets decided'),
    choice: optional(text(), 'Gates: the decision (with --rationale, a resolved gate)'),
    rationale: optional(text(), 'Gates: why'),
    knowledge_type: optional(text(), 'Knowledge: kind of guidance'),
    mitigation: optional(text(), 'Knowledge: what to do about it'),
    ...knowledgeScopeArgs(),
    blocked_by: optional(textList(), 'Blocker ids', { placeholder: 'id,id' }),
    supersedes: optional(text(), 'The node this one replaces', { placeholder: 'id' }),
  }),
  result: () => object({ node: nodeSchema() }),
  run: ({ draft, ids }, args) => {
    const type = typeOf(args.kind, args.subkind);
    assertFieldsBelong(type, args as Record<string, unknown>);
    const specific: Record<string, unknown> = specificFields(type, args, draft.actor(), draft.now);
    if (args.status !== undefined) specific.status = args.status;
    const node = createNode(
      draft,
      {
        id: args.id,
        type,
        common: commonFields(args),
        specific: specific as Partial<TaskNode>,
        links: { blocked_by: args.blocked_by, derived_from: args.derived_from, supersedes: args.supersedes },
        allowUnregisteredInitiative: args.allow_unregistered_initiative ?? false,
        op: 'add-node',
      },
      () => ids.nodeSuffix(),
    );
    return { node };
  },
});

function typeOf(kind: 'resolvable' | 'knowledge', subkind: 'task' | 'gate' | undefined): NodeType {
  if (kind === 'knowledge') {
    if (subkind !== undefined) throw new DomainError('INVALID_ARGUMENT', 'Knowledge nodes take no --subkind', { field: 'subkind', flag: '--subkind' });
    return 'knowledge';
  }
  if (subkind === undefined) throw new DomainError('MISSING_FIELD', 'add-node --kind resolvable requires --subkind task|gate', { field: 'subkind', flag: '--subkind' });
  return subkind;
}

function assertFieldsBelong(type: NodeType, args: Record<string, unknown>): void {
  for (const [other, fields] of Object.entries(FIELDS_OF)) {
    if (other === type) continue;
    const stray = fields.find((field) => args[field] !== undefined && !FIELDS_OF[type].includes(field));
    if (stray) {
      throw new DomainError('INVALID_ARGUMENT', `--${stray.replace(/_/g, '-')} does not apply to a ${type}`, { field: stray, type });
    }
  }
  if (type === 'task' && ['ready', 'blocked', 'backlog'].includes(String(args.status))) {
    throw new DomainError('INVALID_STATUS', `${String(args.status)} is derived and cannot be stored (use --backlog true for the backlog)`, {
      status: args.status,
    });
  }
}

type Specific = Partial<TaskNode> | Partial<GateNode> | Partial<KnowledgeNode>;

function specificFields(type: NodeType, args: Record<string, any>, actor: string, now: string): Specific & { status?: string } {
  switch (type) {
    case 'task': {
      const fields = presentFields(args, ['definition', 'acceptance', 'backlog']) as Partial<TaskNode>;
      // A task stored as in progress is held by someone: its creator, who can release it.
      if (args.status === 'in_progress') fields.claim = { by: actor, at: now };
      return fields;
    }
    case 'gate': {
      const fields = presentFields(args, ['purpose', 'resolution_mode']) as Partial<GateNode>;
      if ((args.choice === undefined) !== (args.rationale === undefined)) {
        throw new DomainError('MISSING_FIELD', '--choice and --rationale go together', { field: args.choice === undefined ? 'choice' : 'rationale' });
      }
      if (args.choice !== undefined) {
        Object.assign(fields, { resolution: { choice: args.choice, rationale: args.rationale }, resolved_by: actor, resolved_at: now });
        if (args.status === undefined) (fields as { status?: string }).status = 'resolved';
      }
      return fields;
    }
    case 'knowledge':
      return { ...presentFields(args, ['knowledge_type', 'mitigation']), scope: scopeFrom(args) } as Partial<KnowledgeNode>;
  }
}
