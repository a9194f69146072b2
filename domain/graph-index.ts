import type { Edge, EdgeType, Graph, NodeId } from './model.js';
import { edgesOf } from './node-map.js';

/**
 * Edges by type and then by endpoint, so a lookup returns a stored list without filtering. Keyed
 * by the id itself, not by a string made of type and id: building it for a graph's every edge
 * allocates no key per edge (a fresh process builds it on each command).
 */
type Adjacency = Map<EdgeType, Map<NodeId, Edge[]>>;
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
    return this.incomingMap().get(type)?.get(id) ?? NONE;
  }

  /** Edges of `type` that start at `id` (for BLOCKS: what `id` blocks). Do not modify it. */
  outOf(id: NodeId, type: EdgeType): readonly Edge[] {
    return this.outgoingMap().get(type)?.get(id) ?? NONE;
  }

  /** Drops the maps (after edge changes were undone in place): they are built again on next use. */
  invalidate(): void {
    this.incoming = null;
    this.outgoing = null;
  }

  /** Records `edge`, just appended to the graph's edges. */
  added(edge: Edge): void {
    if (this.incoming) replaceList(this.incoming, edge.type, edge.to, (list) => [...list, edge]);
    if (this.outgoing) replaceList(this.outgoing, edge.type, edge.from, (list) => [...list, edge]);
  }

  /** Forgets `edge` (the stored object), just removed from the graph's edges. */
  removed(edge: Edge): void {
    const without = (list: readonly Edge[]) => list.filter((existing) => existing !== edge);
    if (this.incoming) replaceList(this.incoming, edge.type, edge.to, without);
    if (this.outgoing) replaceList(this.outgoing, edge.type, edge.from, without);
  }

  private incomingMap(): Adjacency {
    this.incoming ??= groupBy(edgesOf(this.graph), (edge) => edge.to);
    return this.incoming;
  }

  private outgoingMap(): Adjacency {
    this.outgoing ??= groupBy(edgesOf(this.graph), (edge) => edge.from);
    return this.outgoing;
  }
}

function endpoints(map: Adjacency, type: EdgeType): Map<NodeId, Edge[]> {
  let byId = map.get(type);
  if (!byId) map.set(type, (byId = new Map()));
  return byId;
}

function replaceList(map: Adjacency, type: EdgeType, id: NodeId, change: (list: readonly Edge[]) => Edge[]): void {
  const byId = endpoints(map, type);
  byId.set(id, change(byId.get(id) ?? NONE));
}

function groupBy(edges: Edge[], key: (edge: Edge) => NodeId): Adjacency {
  const map: Adjacency = new Map();
  let type: EdgeType | null = null;
  let byId: Map<NodeId, Edge[]> | null = null;
  for (const edge of edges) {
    // Edges of one type tend to come in runs: the map of the type is looked up when it changes.
    if (edge.type !== type) byId = endpoints(map, (type = edge.type));
    const id = key(edge);
    const list = byId!.get(id);
    if (list) list.push(edge);
    else byId!.set(id, [edge]);
  }
  return map;
}
