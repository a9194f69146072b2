import type { Edge, EdgeType, Graph, NodeId } from './model.js';

/** Edges by endpoint and then by type, so a lookup returns a stored list without filtering. */
type Adjacency = Map<string, Edge[]>;
const NONE: readonly Edge[] = Object.freeze([]);

/**
 * Edge lookups by endpoint, built on first use and then kept current edge by edge (a batch of N
 * edge changes costs O(N), not N rebuilds). Rules that walk the graph (derived status, cycles,
 * supersede chains) use it so that a command over tens of thousands of nodes stays linear instead
 * of scanning the edge list per node. Lists are replaced, never changed in place, so a caller may
 * change edges while iterating a list it got. It belongs to one graph's StateIndexes
 * (project-state.ts): whoever changes that graph's edges tells it (`added`, `removed`).
 */
export class GraphIndex {
  private incoming: Adjacency | null = null;
  private outgoing: Adjacency | null = null;

  constructor(private readonly graph: Graph) {}

  /** Edges of `type` that end at `id` (for BLOCKS: the blockers of `id`). Do not modify it. */
  into(id: NodeId, type: EdgeType): readonly Edge[] {
    return this.incomingMap().get(slot(id, type)) ?? NONE;
  }

  /** Edges of `type` that start at `id` (for BLOCKS: what `id` blocks). Do not modify it. */
  outOf(id: NodeId, type: EdgeType): readonly Edge[] {
    return this.outgoingMap().get(slot(id, type)) ?? NONE;
  }

  /** Drops the maps (after edge changes were undone in place): they are built again on next use. */
  invalidate(): void {
    this.incoming = null;
    this.outgoing = null;
  }

  /** Records `edge`, just appended to the graph's edges. */
  added(edge: Edge): void {
    if (this.incoming) replaceList(this.incoming, slot(edge.to, edge.type), (list) => [...list, edge]);
    if (this.outgoing) replaceList(this.outgoing, slot(edge.from, edge.type), (list) => [...list, edge]);
  }

  /** Forgets `edge` (the stored object), just removed from the graph's edges. */
  removed(edge: Edge): void {
    const without = (list: readonly Edge[]) => list.filter((existing) => existing !== edge);
    if (this.incoming) replaceList(this.incoming, slot(edge.to, edge.type), without);
    if (this.outgoing) replaceList(this.outgoing, slot(edge.from, edge.type), without);
  }

  private incomingMap(): Adjacency {
    this.incoming ??= groupBy(this.graph.edges, (edge) => edge.to);
    return this.incoming;
  }

  private outgoingMap(): Adjacency {
    this.outgoing ??= groupBy(this.graph.edges, (edge) => edge.from);
    return this.outgoing;
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
