import { GraphIndex, type SavedEdges } from './graph-index.js';
import type { Edge, Graph, NodeId } from './model.js';
import { ReadyRanking } from './ranking.js';
import type { Timestamp } from './clock.js';
import { earlierAnswer, RequestWindow, type RememberedRequest, type RequestKey } from './request-window.js';
import { StatusIndex, type SavedHeads } from './status-index.js';

/**
 * The indexes derived from one graph: its edges by endpoint and its nodes' heads (status buckets,
 * knowledge by scope, claims). Every change to the graph goes through one of the calls below, made
 * by `applyChangeSet` (a replayed or caught-up change set) and by a GraphDraft (a transaction),
 * so the indexes never fall behind the graph and nothing has to notice a change after the fact.
 */
export class StateIndexes {
  readonly edges: GraphIndex;
  readonly statuses: StatusIndex;
  /** The ready tasks in ranking order (`next`, `status --ranked`). */
  readonly ranking: ReadyRanking;

  constructor(graph: Graph, saved: SavedIndexes = {}) {
    this.edges = new GraphIndex(graph, saved.edges ?? null);
    this.statuses = new StatusIndex(graph, this.edges, saved.heads ?? null);
    this.ranking = new ReadyRanking(graph, this.edges, this.statuses);
  }

  /** Node `id` was written, or removed. */
  nodeChanged(id: NodeId): void {
    this.statuses.nodeChanged(id);
    this.ranking.nodeChanged(id);
  }

  /** `edge` was just appended to the graph's edges. */
  edgeAdded(edge: Edge): void {
    this.edges.added(edge);
    this.edgeChanged(edge);
  }

  /** `edge` (the stored object) was just taken out of the graph's edges. */
  edgeRemoved(edge: Edge): void {
    this.edges.removed(edge);
    this.edgeChanged(edge);
  }

  /** What `edge` touches may read differently: it was added, removed, or its change undone. */
  edgeChanged(edge: Edge): void {
    this.statuses.edgeChanged(edge);
    this.ranking.edgeChanged(edge);
  }
}

/** What a store saved with a graph, to start its indexes from: its heads and its edges by endpoint. */
export interface SavedIndexes {
  heads?: SavedHeads | null;
  edges?: SavedEdges | null;
}

/**
 * A project's state in memory, as one value: the graph (its revision included), its indexes, and
 * the requests it answered recently (request-window.ts). A store holds it and changes it only
 * through `applyChangeSet` and the drafts of its transactions, which keep `indexes` and `requests`
 * current. Both are not enumerable: the state reads, copies and clones as the plain graph it is
 * (a copy is a plain graph, indexed afresh if it is indexed, with no requests).
 */
export type ProjectState = Graph & { readonly indexes: StateIndexes; readonly requests: RequestWindow };

/**
 * Makes `graph` a project state with its own indexes, from `saved` heads (and edges by endpoint) if given, remembering
 * `requests` (as a checkpoint saved them); `graph` is the state's from now on.
 */
export function projectState(graph: Graph, saved: SavedIndexes | null = null, requests: readonly RememberedRequest[] = []): ProjectState {
  Object.defineProperty(graph, 'indexes', { value: new StateIndexes(graph, saved ?? {}), enumerable: false, writable: false, configurable: false });
  Object.defineProperty(graph, 'requests', { value: new RequestWindow(requests), enumerable: false, writable: false, configurable: false });
  return graph as ProjectState;
}

export function isProjectState(graph: Graph): graph is ProjectState {
  return (graph as Partial<ProjectState>).indexes instanceof StateIndexes;
}

/** A copy of `state` with more members (a log), sharing its graph and its indexes: for reading only. */
export function withMembers<T extends object>(state: ProjectState, members: T): ProjectState & T {
  const copy = { ...state, ...members };
  Object.defineProperty(copy, 'indexes', { value: state.indexes, enumerable: false, writable: false, configurable: false });
  Object.defineProperty(copy, 'requests', { value: state.requests, enumerable: false, writable: false, configurable: false });
  return copy as ProjectState & T;
}

/** The indexes of `graph`: a project state's own, or new ones for a graph that has none (a test's, a tool's). */
export function indexesOf(graph: Graph): StateIndexes {
  return isProjectState(graph) ? graph.indexes : new StateIndexes(graph);
}

/** earlierAnswer in the requests `graph` remembers (a graph that is no project state remembers none). */
export function earlierAnswerIn(graph: Graph, key: RequestKey, now: Timestamp): { answer: unknown } | null {
  return isProjectState(graph) ? earlierAnswer(graph.requests, key, now) : null;
}
