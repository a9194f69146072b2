import type { Edge, EdgeType, Graph, NodeId } from './model.js';

/** Edges by endpoint and then by type, so a lookup returns a stored list without filtering. */
type Adjacency = Map<string, Edge[]>;
const NONE: readonly Edge[] = Object.freeze([]);

/**
 * Edge lookups by endpoint, built once per graph on first use and then kept current edge by edge
 * (a batch of N edge changes costs O(N), not N rebuilds). Rules that walk the graph (derived
 * status, cycles, supersede chains) use it so that a command over tens of thousands of nodes
 * stays linear instead of scanning the edge list per node. Lists are replaced, never changed in
 * place, so a caller may change edges while iterating a list it got.
 */
export class GraphIndex {
  private static readonly shared = new WeakMap<Graph, GraphIndex>();
  private incoming: Adjacency | null = null;
  private outgoing: Adjacency | null = null;
  /** How many edges the maps stand for: a graph changed behind the index's back is seen and re-indexed. */
  private edgeCount = -1;

  constructor(private readonly graph: Graph) {}

  /**
   * The index of `graph`, one per graph object: a long-lived graph (a server's, kept in memory)
   * is indexed once, and every draft over it keeps that index current.
   */
  static of(graph: Graph): GraphIndex {
    let index = GraphIndex.shared.get(graph);
    if (!index) {
      index = new GraphIndex(graph);
      GraphIndex.shared.set(graph, index);
    }
    return index;
  }

  /** The index of `graph` if one was made: what a change must keep current. */
  static kept(graph: Graph): GraphIndex | undefined {
    return GraphIndex.shared.get(graph);
  }

  /** Edges of `type` that end at `id` (for BLOCKS: the blockers of `id`). Do not modify it. */
  into(id: NodeId, type: EdgeType): readonly Edge[] {
    return this.incomingMap().get(slot(id, type)) ?? NONE;
  }

  /** Edges of `type` that start at `id` (for BLOCKS: what `id` blocks). Do not modify it. */
  outOf(id: NodeId, type: EdgeType): readonly Edge[] {
    return this.outgoingMap().get(slot(id, type)) ?? NONE;
  }

  /** Drops the cached maps (for code that changes the edge list behind the index's back). */
  invalidate(): void {
    this.incoming = null;
    this.outgoing = null;
  }

  /** Records `edge`, just appended to the graph's edges. */
  added(edge: Edge): void {
    this.edgeCount += 1;
    if (this.incoming) replaceList(this.incoming, slot(edge.to, edge.type), (list) => [...list, edge]);
    if (this.outgoing) replaceList(this.outgoing, slot(edge.from, edge.type), (list) => [...list, edge]);
  }

  /** Forgets `edge` (the stored object), just removed from the graph's edges. */
  removed(edge: Edge): void {
    this.edgeCount -= 1;
    const without = (list: readonly Edge[]) => list.filter((existing) => existing !== edge);
    if (this.incoming) replaceList(this.incoming, slot(edge.to, edge.type), without);
    if (this.outgoing) replaceList(this.outgoing, slot(edge.from, edge.type), without);
  }

  private incomingMap(): Adjacency {
    this.checkCurrent();
    this.incoming ??= groupBy(this.graph.edges, (edge) => edge.to);
    return this.incoming;
  }

  private outgoingMap(): Adjacency {
    this.checkCurrent();
    this.outgoing ??= groupBy(this.graph.edges, (edge) => edge.from);
    return this.outgoing;
  }

  private checkCurrent(): void {
    if (this.edgeCount === this.graph.edges.length) return;
    this.invalidate();
    this.edgeCount = this.graph.edges.length;
  }
}

function slot(id: NodeId, type: EdgeType): string {
  return `${type} ${id}`;
}

function replaceList(map: Adjacency, key: string, change: (list: readonly Edge[]) => Edge[]): void {
  map.set(key, change(map.get(key) ?? NONE));
}

function groupBy(edges: Edge[], key: (edge: Edge) => NodeId): Adjacency {
  const map: Adjacency = new Map();
  for (const edge of edges) {
    const id = slot(key(edge), edge.type);
    const list = map.get(id);
    if (list) list.push(edge);
    else map.set(id, [edge]);
  }
  return map;
}

/** What a graph read needs: the graph and its edge index (a GraphDraft is one). */
export interface GraphView {
  graph: Graph;
  index: GraphIndex;
}
