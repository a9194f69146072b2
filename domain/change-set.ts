import { appendEdge, edgesOf, nodeOf, setNode } from './node-map.js';
import { sameEdge } from './edges.js';
import type { Timestamp } from './clock.js';
import { isProjectState } from './project-state.js';
import type { Edge, Graph, GraphNode, Initiative, LogEntry, Note, NodeId } from './model.js';
import type { RememberedRequest } from './request-window.js';

export interface EdgeChange {
  op: 'add' | 'remove';
  edge: Edge;
}

/** A note appended to a node that was not otherwise rewritten: the note, and the node's new revision and time. */
export interface NoteAppended {
  node: NodeId;
  note: Note;
  revision: number;
  updated_at: Timestamp;
}

/**
 * What one committed transaction changed: the new state revision, the log entries it appended,
 * every node it wrote (whole), notes appended to nodes it did not write whole, its edge changes
 * in order, and initiatives it registered. It is the unit the store appends to its ledger, so its
 * size follows the change, not the graph (a note on a node with a thousand notes is one note).
 * `requests`, present only when there are some, are the remote requests (by id) it answered, with
 * their answers: committed with the change, they are remembered exactly when it is durable.
 */
export interface ChangeSet {
  revision: number;
  log: LogEntry[];
  nodes: Record<NodeId, GraphNode>;
  notes: NoteAppended[];
  edges: EdgeChange[];
  initiatives: Record<string, Initiative>;
  requests?: RememberedRequest[];
}

/**
 * Applies a committed change set to a graph: how the ledger is replayed and how a store's state
 * catches up with commits. A project state's indexes are kept current change by change.
 */
export function applyChangeSet(graph: Graph, changes: ChangeSet): void {
  const state = isProjectState(graph) ? graph : null;
  const indexes = state?.indexes;
  for (const [id, node] of Object.entries(changes.nodes)) {
    setNode(graph, id, node);
    indexes?.nodeChanged(id);
  }
  for (const appended of changes.notes) {
    const node = nodeOf(graph, appended.node);
    if (node) setNode(graph, appended.node, { ...node, notes: [...node.notes, appended.note], revision: appended.revision, updated_at: appended.updated_at });
    indexes?.nodeChanged(appended.node);
  }
  Object.assign(graph.initiatives, changes.initiatives);
  for (const change of changes.edges) {
    if (change.op === 'add') {
      appendEdge(graph, change.edge);
      indexes?.edgeAdded(change.edge);
    } else {
      const edges = edgesOf(graph);
      const at = edges.findIndex((edge) => sameEdge(edge, change.edge));
      if (at < 0) continue;
      const [removed] = edges.splice(at, 1);
      indexes?.edgeRemoved(removed!);
    }
  }
  for (const request of changes.requests ?? []) state?.requests.remember(request);
  graph.revision = changes.revision;
}

/**
 * Several change sets committed in order, as one: replaying it gives the graph that replaying
 * each in turn gives (later node and initiative versions win, edge changes and log entries keep
 * their order). Null when there is nothing to commit.
 */
export function mergeChangeSets(sets: readonly ChangeSet[]): ChangeSet | null {
  if (sets.length === 0) return null;
  const nodes: Record<NodeId, GraphNode> = {};
  let notes: NoteAppended[] = [];
  for (const set of sets) {
    for (const [id, node] of Object.entries(set.nodes)) {
      nodes[id] = node;
      // The node written whole was made from a graph that already held its earlier notes.
      notes = notes.filter((appended) => appended.node !== id);
    }
    for (const appended of set.notes) {
      const whole = nodes[appended.node];
      if (whole) nodes[appended.node] = { ...whole, notes: [...whole.notes, appended.note], revision: appended.revision, updated_at: appended.updated_at };
      else notes.push(appended);
    }
  }
  const requests = sets.flatMap((set) => set.requests ?? []);
  return {
    revision: sets[sets.length - 1]!.revision,
    log: sets.flatMap((set) => set.log),
    nodes,
    notes,
    edges: sets.flatMap((set) => set.edges),
    initiatives: Object.assign({}, ...sets.map((set) => set.initiatives)),
    ...(requests.length > 0 ? { requests } : {}),
  };
}
