import { assertMetaDepth } from './meta.js';
import type { GraphDraft } from './draft.js';
import { DomainError } from './errors.js';
import { NO_WORK } from './task-work.js';
import { allocateNodeId, type SuffixSource } from './ids.js';
import { assertInitiativeKnown } from './initiatives.js';
import {
  GATE_STATUSES,
  KNOWLEDGE_STATUSES,
  TASK_STATUSES,
  isGate,
  isKnowledge,
  nodeType,
  type GateNode,
  type GraphNode,
  type KnowledgeNode,
  type KnowledgeScope,
  type Meta,
  type NodeId,
  type NodeType,
  type TaskNode,
} from './model.js';

export interface CommonFields {
  title: string;
  body?: string;
  initiative: string;
  domain?: string;
  tags?: string[];
  refs?: string[];
  meta?: Meta;
}

export interface Links {
  blocked_by?: NodeId[];
  derived_from?: NodeId[];
  supersedes?: NodeId;
}

export interface CreationRequest {
  id?: NodeId;
  type: NodeType;
  common: CommonFields;
  /** Fields specific to the node type, already validated by the caller's schema. */
  specific: Partial<TaskNode> | Partial<GateNode> | Partial<KnowledgeNode>;
  links: Links;
  allowUnregisteredInitiative: boolean;
  op: string;
}

/** Creates a node with its edges, all or nothing, and records one log entry. */
export function createNode(draft: GraphDraft, request: CreationRequest, suffix: SuffixSource): GraphNode {
  assertInitiativeKnown(draft.graph, request.common.initiative, request.allowUnregisteredInitiative);
  const id = allocateNodeId(draft.graph, request.type, request.id, suffix);
  const node = buildNode(id, request, draft);
  assertStatusFits(node);
  draft.putNode(node);
  for (const blocker of unique(request.links.blocked_by)) draft.addEdge({ from: blocker, to: id, type: 'BLOCKS' });
  for (const source of unique(request.links.derived_from)) draft.addEdge({ from: id, to: source, type: 'DERIVED_FROM' });
  if (request.links.supersedes !== undefined) supersede(draft, node, request.links.supersedes);
  draft.record({ op: request.op, node: id });
  return draft.requireNode(id);
}

function buildNode(id: NodeId, request: CreationRequest, draft: GraphDraft): GraphNode {
  const { common } = request;
  if (common.meta !== undefined) assertMetaDepth(common.meta);
  const base = {
    title: common.title,
    body: common.body ?? '',
    refs: common.refs ?? [],
    meta: common.meta ?? {},
    initiative: common.initiative,
    domain: common.domain ?? null,
    tags: common.tags ?? [],
    revision: 1,
    notes: [],
    created_at: draft.now,
    created_by: draft.actor(),
    updated_at: draft.now,
  };
  switch (request.type) {
    case 'task':
      return { id, kind: 'resolvable', subkind: 'task', ...base, ...taskDefaults(), ...(request.specific as Partial<TaskNode>) };
    case 'gate':
      return { id, kind: 'resolvable', subkind: 'gate', ...base, ...gateDefaults(), ...(request.specific as Partial<GateNode>) };
    case 'knowledge':
      return { id, kind: 'knowledge', ...base, ...knowledgeDefaults(), ...(request.specific as Partial<KnowledgeNode>) };
  }
}

function taskDefaults(): Pick<
  TaskNode,
  | 'status' | 'definition' | 'acceptance' | 'backlog' | 'claim' | 'submitted_by' | 'submitted_at'
  | 'done_by' | 'done_at' | 'accepted_by' | 'accepted_at' | 'note'
> {
  return {
    status: 'open',
    definition: null,
    acceptance: null,
    backlog: false,
    ...NO_WORK,
  };
}

function gateDefaults(): Pick<GateNode, 'status' | 'purpose' | 'resolution_mode' | 'resolution' | 'resolved_by' | 'resolved_at'> {
  return { status: 'open', purpose: null, resolution_mode: null, resolution: null, resolved_by: null, resolved_at: null };
}

function knowledgeDefaults(): Pick<
  KnowledgeNode,
  'status' | 'knowledge_type' | 'mitigation' | 'scope' | 'deprecation_reason' | 'deprecated_at' | 'deprecated_by'
> {
  return {
    status: 'active',
    knowledge_type: null,
    mitigation: null,
    scope: emptyScope(),
    deprecation_reason: null,
    deprecated_at: null,
    deprecated_by: null,
  };
}

/** The fields a new node of `type` starts with besides the common ones (also used by `migrate`). */
export function typeDefaults(type: NodeType): Partial<GraphNode> {
  switch (type) {
    case 'task':
      return taskDefaults();
    case 'gate':
      return gateDefaults();
    case 'knowledge':
      return knowledgeDefaults();
  }
}

export function emptyScope(): KnowledgeScope {
  return { domains: [], initiatives: [], tags: [], node_ids: [] };
}

const STATUSES_OF: Record<NodeType, readonly string[]> = {
  task: TASK_STATUSES,
  gate: GATE_STATUSES,
  knowledge: KNOWLEDGE_STATUSES,
};

function assertStatusFits(node: GraphNode): void {
  const allowed = STATUSES_OF[nodeType(node)];
  if (!allowed.includes(node.status)) {
    throw new DomainError('INVALID_STATUS', `A ${nodeType(node)} cannot be stored as ${node.status}`, {
      id: node.id,
      status: node.status,
      allowed: [...allowed],
    });
  }
}

/**
 * The new node replaces `oldId`. Tasks are never superseded (spec 4.2). A superseded gate keeps
 * its decision history but hands its blockers to its successor; superseded knowledge is
 * deprecated so that it stops being served as guidance.
 */
function supersede(draft: GraphDraft, successor: GraphNode, oldId: NodeId): void {
  const old = draft.node(oldId);
  if (!old) throw new DomainError('INVALID_EDGE_TARGET', `Edge endpoint ${oldId} does not exist`, { missing: oldId });
  if (!isGate(successor) && !isKnowledge(successor)) {
    throw new DomainError('INVALID_ARGUMENT', '--supersedes is not allowed on tasks', { field: 'supersedes' });
  }
  draft.addEdge({ from: successor.id, to: oldId, type: 'SUPERSEDES' });
  if (isGate(old)) supersedeGate(draft, old, successor.id);
  else if (isKnowledge(old)) deprecateSuperseded(draft, old, successor.id);
}

function supersedeGate(draft: GraphDraft, old: GateNode, successorId: NodeId): void {
  if (old.status === 'superseded' || old.status === 'canceled') {
    throw new DomainError('INVALID_STATUS', `Gate ${old.id} is ${old.status} and cannot be superseded`, {
      id: old.id,
      status: old.status,
    });
  }
  draft.putNode({ ...old, status: 'superseded', revision: old.revision + 1, updated_at: draft.now });
  for (const edge of draft.index.into(old.id, 'BLOCKS')) {
    draft.removeEdge(edge);
    if (!draft.index.outOf(edge.from, 'BLOCKS').some((existing) => existing.to === successorId)) {
      draft.addEdge({ from: edge.from, to: successorId, type: 'BLOCKS' });
    }
  }
}

function deprecateSuperseded(draft: GraphDraft, old: KnowledgeNode, successorId: NodeId): void {
  if (old.status === 'deprecated') return;
  draft.putNode({
    ...old,
    status: 'deprecated',
    deprecation_reason: `superseded by ${successorId}`,
    deprecated_at: draft.now,
    deprecated_by: draft.actor(),
    revision: old.revision + 1,
    updated_at: draft.now,
  });
}

function unique(ids: NodeId[] | undefined): NodeId[] {
  return [...new Set(ids ?? [])];
}
