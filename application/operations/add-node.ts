import { createNode } from '../../domain/creation.js';
import { DomainError } from '../../domain/errors.js';
import type { GateNode, KnowledgeNode, NodeType, TaskNode } from '../../domain/model.js';
import { flag, nonEmptyText, oneOf, optional, required, text, textList } from '../args.js';
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
  mutates: true,
  args: {
    id: required(nonEmptyText(), { positional: true }),
    kind: required(oneOf(['resolvable', 'knowledge'] as const)),
    subkind: optional(oneOf(['task', 'gate'] as const)),
    ...commonNodeArgs,
    status: optional(nonEmptyText()),
    definition: optional(text()),
    acceptance: optional(text()),
    backlog: optional(flag()),
    purpose: optional(text()),
    resolution_mode: optional(text()),
    choice: optional(text()),
    rationale: optional(text()),
    knowledge_type: optional(text()),
    mitigation: optional(text()),
    ...knowledgeScopeArgs,
    blocked_by: optional(textList()),
    supersedes: optional(text()),
  },
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
