import type { Timestamp } from './clock.js';

export type NodeId = string;
export type AgentName = string;
export type Meta = Record<string, unknown>;

export const TASK_STATUSES = ['open', 'in_progress', 'submitted', 'done', 'archived', 'canceled'] as const;
export const GATE_STATUSES = ['open', 'resolved', 'superseded', 'canceled'] as const;
export const KNOWLEDGE_STATUSES = ['active', 'deprecated'] as const;

/** What is stored on a task; `ready`, `blocked` and `backlog` are derived from it (see status.ts). */
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type GateStatus = (typeof GATE_STATUSES)[number];
export type KnowledgeStatus = (typeof KNOWLEDGE_STATUSES)[number];

export interface Note {
  at: Timestamp;
  by: AgentName;
  text: string;
}

interface NodeBase {
  id: NodeId;
  title: string;
  body: string;
  refs: string[];
  meta: Meta;
  initiative: string;
  domain: string | null;
  tags: string[];
  revision: number;
  notes: Note[];
  created_at: Timestamp;
  created_by: AgentName;
  updated_at: Timestamp;
}

/**
 * Who holds a task and since when (spec 2.2), and what taskdag adds (docs/decisions.md, "Leases"):
 * `token`, the fencing token of this claim (the state revision that made it, so a later claim of
 * the same task always carries another); and, when the claim was taken with a lease, how long the
 * lease runs and when it ends unless its holder renews it. Claims made before leases have neither.
 */
export interface Claim {
  by: AgentName;
  at: Timestamp;
  token?: number;
  lease_ms?: number;
  expires_at?: Timestamp;
}

/** Why a task's latest submission was sent back, by whom and when: kept on the task until it is accepted. */
export interface Rejection {
  reason: string;
  by: AgentName;
  at: Timestamp;
}

export interface TaskNode extends NodeBase {
  kind: 'resolvable';
  subkind: 'task';
  status: TaskStatus;
  definition: string | null;
  acceptance: string | null;
  backlog: boolean;
  claim: Claim | null;
  submitted_by: AgentName | null;
  submitted_at: Timestamp | null;
  done_by: AgentName | null;
  done_at: Timestamp | null;
  accepted_by: AgentName | null;
  accepted_at: Timestamp | null;
  note: string | null;
  /** Present only while the task carries a rejection that no acceptance has cleared (docs/decisions.md). */
  rejection?: Rejection;
  /** How urgent the task is, 0 (most) to 4 (least); absent means DEFAULT_PRIORITY (domain/ranking.ts). */
  priority?: number;
}

export interface Resolution {
  choice: string;
  rationale: string;
}

export interface GateNode extends NodeBase {
  kind: 'resolvable';
  subkind: 'gate';
  status: GateStatus;
  purpose: string | null;
  resolution_mode: string | null;
  resolution: Resolution | null;
  resolved_by: AgentName | null;
  resolved_at: Timestamp | null;
}

export interface KnowledgeScope {
  domains: string[];
  initiatives: string[];
  tags: string[];
  node_ids: NodeId[];
}

export interface KnowledgeNode extends NodeBase {
  kind: 'knowledge';
  status: KnowledgeStatus;
  knowledge_type: string | null;
  mitigation: string | null;
  scope: KnowledgeScope;
  deprecation_reason: string | null;
  deprecated_at: Timestamp | null;
  deprecated_by: AgentName | null;
}

export type ResolvableNode = TaskNode | GateNode;
export type GraphNode = TaskNode | GateNode | KnowledgeNode;

/** The user-facing type of a node: `task`, `gate` or `knowledge`. */
export type NodeType = 'task' | 'gate' | 'knowledge';

export function nodeType(node: GraphNode): NodeType {
  return node.kind === 'knowledge' ? 'knowledge' : node.subkind;
}

export function isTask(node: GraphNode | undefined): node is TaskNode {
  return node !== undefined && node.kind === 'resolvable' && node.subkind === 'task';
}

export function isGate(node: GraphNode | undefined): node is GateNode {
  return node !== undefined && node.kind === 'resolvable' && node.subkind === 'gate';
}

export function isKnowledge(node: GraphNode | undefined): node is KnowledgeNode {
  return node !== undefined && node.kind === 'knowledge';
}

/**
 * Who may accept a submission: `any` agent (the spec's rule, the default), or only an agent other
 * than the one that submitted it (`independent`, docs/decisions.md).
 */
export const REVIEW_RULES = ['any', 'independent'] as const;
export type ReviewRule = (typeof REVIEW_RULES)[number];

export const EDGE_TYPES = ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

export interface Edge {
  from: NodeId;
  to: NodeId;
  type: EdgeType;
}

export interface Initiative {
  desc: string;
  created_at: Timestamp;
}

/** One entry of the append-only mutation log. `node` and `note` are what `history` reads. */
export interface LogEntry {
  revision: number;
  at: Timestamp;
  by: AgentName;
  op: string;
  node: NodeId | null;
  note?: string;
  reason?: string;
  [extra: string]: unknown;
}

/** The graph: everything in the state except its log, which only grows and is read apart. */
export interface Graph {
  version: 1;
  fence_generation: number;
  revision: number;
  initiatives: Record<string, Initiative>;
  nodes: Record<NodeId, GraphNode>;
  edges: Edge[];
}

/** The state of schema 1 as the spec defines it: the graph and its log, seven collections. */
export interface State extends Graph {
  log: LogEntry[];
}

export function emptyGraph(): Graph {
  return { version: 1, fence_generation: 1, revision: 0, initiatives: {}, nodes: {}, edges: [] };
}
