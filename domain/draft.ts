import { appendEdge, deleteNode, edgesOf, nodeOf, setNode } from './node-map.js';
import type { ChangeSet, EdgeChange, NoteAppended } from './change-set.js';
import type { Timestamp } from './clock.js';
import { assertEdgeAllowed, sameEdge } from './edges.js';
import { DomainError } from './errors.js';
import type { GraphIndex } from './graph-index.js';
import { nodeNotFound } from './node-not-found.js';
import { indexesOf, isProjectState, type StateIndexes } from './project-state.js';
import type { ReadyRanking } from './ranking.js';
import type { StatusIndex } from './status-index.js';
import type { AgentName, Edge, Graph, GraphNode, Initiative, LogEntry, NodeId, Note, ReviewRule } from './model.js';
import type { TouchedNode } from './plugins.js';
import type { RememberedRequest } from './request-window.js';

/** A log entry before the draft stamps it with the revision, time and agent. */
export interface LogInput {
  op: string;
  node: NodeId | null;
  note?: string;
  reason?: string;
  [extra: string]: unknown;
}

/**
 * A graph being changed by one transaction (one command, or every operation of a batch).
 * Rules read and write through it; it keeps the graph's indexes current (a project state's own,
 * see project-state.ts) and records what changed, so the store can persist exactly that. Nothing
 * is durable until the store commits `changes()`.
 */
export class GraphDraft {
  private readonly indexes: StateIndexes;
  private readonly changedNodes = new Map<NodeId, GraphNode>();
  private readonly appendedNotes: NoteAppended[] = [];
  private readonly edgeChanges: EdgeChange[] = [];
  private readonly changedInitiatives: Record<string, Initiative> = {};
  private readonly logEntries: LogEntry[] = [];
  private readonly answered: RememberedRequest[] = [];
  /** How to put the graph back, change by change, if this draft's work fails (see rollback). */
  private readonly undo: (() => void)[] = [];
  /** While `tracking` runs: each node it changed, as it was before (null: created). */
  private touchedBefore: Map<NodeId, GraphNode | null> | null = null;

  constructor(
    readonly graph: Graph,
    readonly now: Timestamp,
    private acting: AgentName | null,
    /** The project's review rule (who may accept a submission). */
    readonly review: ReviewRule = 'any',
  ) {
    this.indexes = indexesOf(graph);
  }

  /** The graph's edges by endpoint. */
  get index(): GraphIndex {
    return this.indexes.edges;
  }

  /** The graph's nodes' heads (derived statuses), by status and scope. */
  get statuses(): StatusIndex {
    return this.indexes.statuses;
  }

  /** The graph's ready tasks in ranking order. */
  get ranking(): ReadyRanking {
    return this.indexes.ranking;
  }

  /** The agent the current operation acts as. */
  get agent(): AgentName | null {
    return this.acting;
  }

  /** Runs `work` acting as `agent` on this same draft: the items of one batch may act as different agents. */
  actingAs<T>(agent: AgentName, work: () => T): T {
    const previous = this.acting;
    this.acting = agent;
    try {
      return work();
    } finally {
      this.acting = previous;
    }
  }

  /** Runs `work` and says which nodes it changed, as they were and as they are now (what policy plugins are shown). */
  tracking<T>(work: () => T): { result: T; touched: TouchedNode[] } {
    const outer = this.touchedBefore;
    const before = new Map<NodeId, GraphNode | null>();
    this.touchedBefore = before;
    try {
      const result = work();
      return { result, touched: [...before].map(([id, was]) => ({ id, before: was, after: this.node(id) ?? null })) };
    } finally {
      this.touchedBefore = outer;
      if (outer) for (const [id, was] of before) if (!outer.has(id)) outer.set(id, was);
    }
  }

  private touch(id: NodeId, previous: GraphNode | undefined): void {
    if (this.touchedBefore && !this.touchedBefore.has(id)) this.touchedBefore.set(id, previous ?? null);
  }

  node(id: NodeId): GraphNode | undefined {
    return nodeOf(this.graph, id);
  }

  requireNode(id: NodeId): GraphNode {
    const node = this.node(id);
    if (!node) throw nodeNotFound(this.graph, id);
    return node;
  }

  putNode(node: GraphNode): void {
    const previous = this.node(node.id);
    this.touch(node.id, previous);
    this.undo.push(() => {
      if (previous) setNode(this.graph, node.id, previous);
      else deleteNode(this.graph, node.id);
    });
    setNode(this.graph, node.id, node);
    this.changedNodes.set(node.id, node);
    this.indexes.nodeChanged(node.id);
  }

  /** Appends a note to a node (a new revision of it), recorded as the note alone unless the node is written whole too. */
  appendNote(node: GraphNode, note: Note): GraphNode {
    const next = { ...node, notes: [...node.notes, note], revision: node.revision + 1, updated_at: this.now };
    const previous = this.node(node.id);
    this.touch(node.id, previous);
    this.undo.push(() => {
      if (previous) setNode(this.graph, node.id, previous);
      else deleteNode(this.graph, node.id);
    });
    setNode(this.graph, node.id, next);
    this.indexes.nodeChanged(node.id);
    if (this.changedNodes.has(node.id)) this.changedNodes.set(node.id, next);
    else this.appendedNotes.push({ node: node.id, note, revision: next.revision, updated_at: next.updated_at });
    return next;
  }

  addEdge(edge: Edge): Edge {
    assertEdgeAllowed(this.graph, this.index, edge);
    const stored = { from: edge.from, to: edge.to, type: edge.type };
    appendEdge(this.graph, stored);
    this.undo.push(() => {
      const edges = edgesOf(this.graph);
      const at = edges.lastIndexOf(stored);
      if (at >= 0) edges.splice(at, 1);
    });
    this.edgeChanges.push({ op: 'add', edge: stored });
    this.indexes.edgeAdded(stored);
    return stored;
  }

  /** Removes the exact edge; false when it was not there (removal is idempotent). */
  removeEdge(edge: Edge): boolean {
    // From the end: the edges a transaction removes are often ones it or a recent one added.
    const edges = edgesOf(this.graph);
    let at = edges.length - 1;
    while (at >= 0 && !sameEdge(edges[at]!, edge)) at--;
    if (at < 0) return false;
    const [removed] = edges.splice(at, 1);
    this.undo.push(() => edges.splice(at, 0, removed!));
    this.edgeChanges.push({ op: 'remove', edge: removed! });
    this.indexes.edgeRemoved(removed!);
    return true;
  }

  putInitiative(name: string, initiative: Initiative): void {
    const previous = Object.hasOwn(this.graph.initiatives, name) ? this.graph.initiatives[name] : undefined;
    this.undo.push(() => {
      if (previous) this.graph.initiatives[name] = previous;
      else delete this.graph.initiatives[name];
    });
    this.graph.initiatives[name] = initiative;
    this.changedInitiatives[name] = initiative;
  }

  /** The acting agent; only mutating operations run with one, so its absence is a bug. */
  actor(): AgentName {
    if (!this.agent) throw new DomainError('MISSING_AGENT', 'This operation needs an agent identity', {});
    return this.agent;
  }

  /** Appends the log entry of one operation; each operation that changes the graph records one. */
  record(entry: LogInput): LogEntry {
    this.graph.revision += 1;
    this.undo.push(() => {
      this.graph.revision -= 1;
    });
    const logged = { revision: this.graph.revision, at: this.now, by: this.actor(), ...entry } as LogEntry;
    this.logEntries.push(logged);
    return logged;
  }

  /**
   * Commits `request`'s id and answer with this draft's changes, so that its retry gets the answer
   * instead of applying it again (request-window.ts). A request that changed nothing commits
   * nothing: it is not remembered, and its retry runs again, changing nothing again.
   */
  rememberRequest(request: RememberedRequest): void {
    if (this.logEntries.length === 0 || !isProjectState(this.graph)) return;
    this.undo.push(this.graph.requests.remember(request));
    this.answered.push(request);
  }

  /**
   * Puts the graph back exactly as it was before this draft changed it, and forgets the changes:
   * an operation that fails halfway leaves nothing behind for the next one on the same graph
   * (requests committed together by the server).
   */
  rollback(): void {
    // Edge changes are undone in place, around the edge index: it is built again when next used.
    const edgesChanged = this.edgeChanges.length > 0;
    for (let step = this.undo.pop(); step; step = this.undo.pop()) step();
    if (edgesChanged) this.index.invalidate();
    // Marked against the restored graph: both ends of every edge changed are marked, so what an
    // undone edge led to is derived again too.
    this.markChanged();
    this.changedNodes.clear();
    this.appendedNotes.length = 0;
    this.edgeChanges.length = 0;
    for (const name of Object.keys(this.changedInitiatives)) delete this.changedInitiatives[name];
    this.logEntries.length = 0;
    this.answered.length = 0;
  }

  /** Marks every node and edge this draft changed in the graph's derived indexes. */
  private markChanged(): void {
    for (const id of this.changedNodes.keys()) this.indexes.nodeChanged(id);
    for (const appended of this.appendedNotes) this.indexes.nodeChanged(appended.node);
    for (const change of this.edgeChanges) this.indexes.edgeChanged(change.edge);
  }

  /** Everything recorded so far, or null when nothing changed. */
  changes(): ChangeSet | null {
    if (this.logEntries.length === 0) return null;
    // A node written whole already holds its notes.
    const notes = this.appendedNotes.filter((appended) => !this.changedNodes.has(appended.node));
    return {
      revision: this.graph.revision,
      log: [...this.logEntries],
      nodes: Object.fromEntries(this.changedNodes),
      notes,
      edges: [...this.edgeChanges],
      initiatives: { ...this.changedInitiatives },
      ...(this.answered.length > 0 ? { requests: [...this.answered] } : {}),
    };
  }
}
