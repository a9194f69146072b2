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

/** Marks a NodeMap or an EdgeList (a symbol: no record parsed from JSON has one). */
export const LAZY_COLLECTION = Symbol('taskdag.lazy-collection');

/**
 * A graph's nodes read through calls rather than as a record: what a store gives when it reads
 * nodes only as they are used (a checkpoint's node lines, adapters/lazy-nodes.ts), so that a
 * command reading one node of fifty thousand costs one node. The order of `ids` is a record's:
 * the nodes it was made with, then those set since.
 */
export interface NodeMap {
  readonly [LAZY_COLLECTION]: 'nodes';
  get(id: NodeId): GraphNode | undefined;
  has(id: NodeId): boolean;
  set(id: NodeId, node: GraphNode): void;
  delete(id: NodeId): void;
  ids(): NodeId[];
  readonly size: number;
  /**
   * Node `id`'s JSON as stored, while it has not been read (undefined once it has, or when the map
   * has none): lets a reader that looks for text in many nodes (`search`) skip parsing those whose
   * bytes cannot hold it.
   */
  storedText?(id: NodeId): string | undefined;
}

/** A graph's edges read when first used (a checkpoint's edges line); appending does not read them. */
export interface EdgeList {
  readonly [LAZY_COLLECTION]: 'edges';
  /** Every edge, in order: the list itself, changed in place by whoever changes the graph's edges. */
  all(): Edge[];
  /** Appends `edge` without reading the others, when they have not been read yet. */
  push(edge: Edge): void;
}

/** A graph's nodes: a plain record (a graph built in memory, a whole state), or a NodeMap. */
export type Nodes = Record<NodeId, GraphNode> | NodeMap;
/** A graph's edges: a plain list, or an EdgeList. */
export type Edges = Edge[] | EdgeList;

/**
 * The graph: everything in the state except its log, which only grows and is read apart. Its nodes
 * and edges are plain data, or read as they are used (node-map.ts: read them through its calls).
 */
export interface Graph {
  version: 1;
  fence_generation: number;
  revision: number;
  initiatives: Record<string, Initiative>;
  nodes: Nodes;
  edges: Edges;
}

/** A graph as plain data throughout: what is encoded, cloned or sent whole. */
export interface PlainGraph extends Graph {
  nodes: Record<NodeId, GraphNode>;
  edges: Edge[];
}

/** The graph and its log, as a store hands them to a read of the whole log (its nodes may be read as used). */
export interface GraphWithLog extends Graph {
  log: LogEntry[];
}

/** The state of schema 1 as the spec defines it, plain data: the graph and its log, seven collections. */
export interface State extends PlainGraph {
  log: LogEntry[];
}

export function emptyGraph(): PlainGraph {
  return { version: 1, fence_generation: 1, revision: 0, initiatives: {}, nodes: {}, edges: [] };
}
