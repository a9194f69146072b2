import type { Edge, EdgeType, Graph, NodeId } from './model.js';

type Adjacency = Map<NodeId, Edge[]>;

/**
 * Edge lookups by endpoint, built once per graph on first use. Rules that walk the graph
 * (derived status, cycles, supersede chains) use it so that a command over tens of thousands of
 * nodes stays linear instead of scanning the edge list per node.
 */
export class GraphIndex {
  private incoming: Adjacency | null = null;
  private outgoing: Adjacency | null = null;

  constructor(private readonly graph: Graph) {}

  /** Edges of `type` that end at `id` (for BLOCKS: the blockers of `id`). */
  into(id: NodeId, type: EdgeType): Edge[] {
    return (this.incomingMap().get(id) ?? []).filter((edge) => edge.type === type);
  }

  /** Edges of `type` that start at `id` (for BLOCKS: what `id` blocks). */
  outOf(id: NodeId, type: EdgeType): Edge[] {
    return (this.outgoingMap().get(id) ?? []).filter((edge) => edge.type === type);
  }

  /** Drops the cached maps; called whenever the edge list changes. */
  invalidate(): void {
    this.incoming = null;
    this.outgoing = null;
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

function groupBy(edges: Edge[], key: (edge: Edge) => NodeId): Adjacency {
  const map: Adjacency = new Map();
  for (const edge of edges) {
    const id = key(edge);
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
