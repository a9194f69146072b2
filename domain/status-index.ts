import type { Timestamp } from './clock.js';
import { GraphIndex } from './graph-index.js';
import { isKnowledge, isTask, nodeType, type Claim, type Edge, type Graph, type KnowledgeScope, type NodeId, type NodeType } from './model.js';
import { derivedStatus, readinessDependents } from './status.js';

/**
 * What whole-graph reads select on, for one node: its type, its derived status (the status
 * bucket), the fields `status` filters and orders by, its claim, and a knowledge node's scope.
 */
export interface NodeHead {
  id: NodeId;
  type: NodeType;
  status: string;
  initiative: string;
  domain: string | null;
  created_at: Timestamp;
  claim: Claim | null;
  scope: KnowledgeScope | null;
}

/**
 * Every node's head, kept current change by change: a change to a node marks it and the tasks
 * whose readiness can depend on it (see `readinessDependents`), and only those are derived again
 * when the heads are next read. So `status` reads heads and parses only the nodes it lists;
 * `context` matches knowledge by scope without reading the rest. One index per graph object, like
 * GraphIndex: a graph kept in memory (a server's) is derived once; a store may seed it from heads
 * it saved with the graph (a checkpoint), so a command derives nothing it did not change.
 */
export class StatusIndex {
  private static readonly shared = new WeakMap<Graph, StatusIndex>();
  private heads: Map<NodeId, NodeHead> | null = null;
  private readonly stale = new Set<NodeId>();

  private constructor(private readonly graph: Graph) {}

  /** The index of `graph`, derived from every node on first use unless seeded. */
  static of(graph: Graph): StatusIndex {
    let index = StatusIndex.shared.get(graph);
    if (!index) {
      index = new StatusIndex(graph);
      StatusIndex.shared.set(graph, index);
    }
    return index;
  }

  /** The index of `graph` if one is kept: what a change must keep current (nothing to do otherwise). */
  static kept(graph: Graph): StatusIndex | undefined {
    return StatusIndex.shared.get(graph);
  }

  /** Starts `graph`'s index from heads that are true of it now (saved with it by the store). */
  static seed(graph: Graph, heads: Iterable<NodeHead>): void {
    const index = StatusIndex.of(graph);
    index.heads = new Map();
    for (const head of heads) index.heads.set(head.id, head);
    index.stale.clear();
  }

  /** Node `id` was written (or removed): it and what its readiness feeds are derived again. */
  nodeChanged(id: NodeId): void {
    if (!this.heads) return;
    this.stale.add(id);
    for (const dependent of readinessDependents(this.graph, GraphIndex.of(this.graph), id)) this.stale.add(dependent);
  }

  /**
   * `edge` was added or removed. Both ends are marked: what the edge led to is reached from its
   * `to` end whether or not the edge is still there.
   */
  edgeChanged(edge: Edge): void {
    this.nodeChanged(edge.from);
    this.nodeChanged(edge.to);
  }

  /** Every node's head, current. Do not modify it. */
  all(): ReadonlyMap<NodeId, NodeHead> {
    if (!this.heads) {
      this.heads = new Map();
      for (const id of Object.keys(this.graph.nodes)) this.derive(id);
    } else {
      for (const id of this.stale) this.derive(id);
    }
    this.stale.clear();
    return this.heads;
  }

  private derive(id: NodeId): void {
    const node = Object.hasOwn(this.graph.nodes, id) ? this.graph.nodes[id] : undefined;
    if (!node) {
      this.heads!.delete(id);
      return;
    }
    this.heads!.set(id, {
      id,
      type: nodeType(node),
      status: derivedStatus(this.graph, GraphIndex.of(this.graph), node),
      initiative: node.initiative,
      domain: node.domain,
      created_at: node.created_at,
      claim: isTask(node) ? node.claim : null,
      scope: isKnowledge(node) ? node.scope : null,
    });
  }
}
