import { assertMetaDepth } from './meta.js';
import type { GraphDraft } from './draft.js';
import { DomainError } from './errors.js';
import { assertInitiativeKnown } from './initiatives.js';
import { revise } from './lifecycle.js';
import { isKnowledge, nodeType, type GraphNode, type KnowledgeScope, type Meta, type NodeId, type NodeType } from './model.js';
import { authorize } from './permissions.js';

/** Every field `update` may change (spec 4.3); each is optional, at least one must be given. */
export interface UpdateFields {
  title?: string;
  body?: string;
  initiative?: string;
  domain?: string;
  tags?: string[];
  refs?: string[];
  meta?: Meta;
  definition?: string;
  acceptance?: string;
  backlog?: boolean;
  priority?: number;
  purpose?: string;
  resolution_mode?: string;
  knowledge_type?: string;
  mitigation?: string;
  scope_domains?: string[];
  scope_initiatives?: string[];
  scope_tags?: string[];
  scope_node_ids?: string[];
}

export interface UpdateOptions {
  /** The revision the caller last saw; a different stored revision is REVISION_CONFLICT. */
  ifRevision?: number;
  allowUnregisteredInitiative: boolean;
}

type Field = keyof UpdateFields;

const COMMON: readonly Field[] = ['title', 'body', 'initiative', 'domain', 'tags', 'refs', 'meta'];
const SPECIFIC: Record<NodeType, readonly Field[]> = {
  task: ['definition', 'acceptance', 'backlog', 'priority'],
  gate: ['purpose', 'resolution_mode'],
  knowledge: ['knowledge_type', 'mitigation', 'scope_domains', 'scope_initiatives', 'scope_tags', 'scope_node_ids'],
};
const SCOPE_KEYS: Partial<Record<Field, keyof KnowledgeScope>> = {
  scope_domains: 'domains',
  scope_initiatives: 'initiatives',
  scope_tags: 'tags',
  scope_node_ids: 'node_ids',
};

/**
 * Changes the given fields of a node. Lists (`tags`, `refs`, each scope list) are replaced
 * whole; `meta` is replaced whole; an empty `domain` clears it. Fields of another node type
 * are refused rather than ignored.
 */
export function updateNode(draft: GraphDraft, id: NodeId, fields: UpdateFields, options: UpdateOptions): { node: GraphNode } {
  const node = draft.requireNode(id);
  authorize(draft, node, 'update', draft.actor());
  if (options.ifRevision !== undefined && options.ifRevision !== node.revision) {
    throw new DomainError('REVISION_CONFLICT', `${id} is at revision ${node.revision}, not ${options.ifRevision}: read it again`, {
      id,
      expected: options.ifRevision,
      actual: node.revision,
    });
  }
  const given = (Object.keys(fields) as Field[]).filter((field) => fields[field] !== undefined);
  if (given.length === 0) {
    throw new DomainError('MISSING_FIELD', 'update needs at least one field to change', { operation: 'update', id });
  }
  const type = nodeType(node);
  const stray = given.find((field) => !COMMON.includes(field) && !SPECIFIC[type].includes(field));
  if (stray) {
    throw new DomainError('INVALID_ARGUMENT', `--${stray.replace(/_/g, '-')} does not apply to a ${type}`, { id, field: stray, type });
  }
  if (fields.initiative !== undefined) assertInitiativeKnown(draft.graph, fields.initiative, options.allowUnregisteredInitiative);
  if (fields.meta !== undefined) assertMetaDepth(fields.meta);
  const updated = revise(draft, node, changesFor(node, fields, given));
  draft.record({ op: 'update', node: id, fields: given });
  return { node: updated };
}

function changesFor(node: GraphNode, fields: UpdateFields, given: Field[]): Partial<GraphNode> {
  const changes: Record<string, unknown> = {};
  for (const field of given) if (!SCOPE_KEYS[field]) changes[field] = fields[field];
  if (fields.domain === '') changes.domain = null;
  if (isKnowledge(node)) {
    const scope = { ...node.scope };
    for (const field of given) {
      const key = SCOPE_KEYS[field];
      if (key) scope[key] = fields[field] as string[];
    }
    if (Object.values(scope).every((list) => list.length === 0)) {
      throw new DomainError('INVALID_ARGUMENT', 'A knowledge item needs a scope: at least one scope list must stay non-empty', { id: node.id, field: 'scope' });
    }
    changes.scope = scope;
  }
  return changes as Partial<GraphNode>;
}
