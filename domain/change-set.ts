import { sameEdge } from './edges.js';
import type { Edge, Graph, GraphNode, Initiative, LogEntry, NodeId } from './model.js';

export interface EdgeChange {
  op: 'add' | 'remove';
  edge: Edge;
}

/**
 * What one committed transaction changed: the new state revision, the log entries it appended,
 * every node it wrote (whole), its edge changes in order, and initiatives it registered. It is
 * the unit the store appends to its ledger, so its size follows the change, not the graph.
 */
export interface ChangeSet {
  revision: number;
  log: LogEntry[];
  nodes: Record<NodeId, GraphNode>;
  edges: EdgeChange[];
  initiatives: Record<string, Initiative>;
}

/** Replays a committed change set onto a graph (used when loading the ledger). */
export function applyChangeSet(graph: Graph, changes: ChangeSet): void {
  Object.assign(graph.nodes, changes.nodes);
  Object.assign(graph.initiatives, changes.initiatives);
  for (const change of changes.edges) {
    if (change.op === 'add') {
      graph.edges.push(change.edge);
    } else {
      const at = graph.edges.findIndex((edge) => sameEdge(edge, change.edge));
      if (at >= 0) graph.edges.splice(at, 1);
    }
  }
  graph.revision = changes.revision;
}

/**
 * Several change sets committed in order, as one: replaying it gives the graph that replaying
 * each in turn gives (later node and initiative versions win, edge changes and log entries keep
 * their order). Null when there is nothing to commit.
 */
export function mergeChangeSets(sets: readonly ChangeSet[]): ChangeSet | null {
  if (sets.length === 0) return null;
  return {
    revision: sets[sets.length - 1]!.revision,
    log: sets.flatMap((set) => set.log),
    nodes: Object.assign({}, ...sets.map((set) => set.nodes)),
    edges: sets.flatMap((set) => set.edges),
    initiatives: Object.assign({}, ...sets.map((set) => set.initiatives)),
  };
}
