import type { Edge, EdgeType, Graph, NodeId } from './model.js';
import { edgesOf, nodeCount } from './node-map.js';

/**
 * Edges by type and then by endpoint, so a lookup returns a stored list without filtering. Keyed
 * by the id itself, not by a string made of type and id: building it for a graph's every edge
 * allocates no key per edge (a fresh process builds it on each command).
 */
type Adjacency = Map<EdgeType, Map<NodeId, Edge[]>>;
const NONE: readonly Edge[] = Object.freeze([]);

/** The edges into and out of one node, by type. */
interface NodeEdges {
  into: Map<EdgeType, Edge[]>;
  outOf: Map<EdgeType, Edge[]>;
}

/**
 * What a node read from the saved endpoints with no edge holds, shared and never changed: most
 * nodes a server reads have none (every task made since its checkpoint), and two maps each,
 * kept for the server's lifetime, were a third of what it retained per mutation. A node gets lists
 * of its own at its first edge change.
 */
const NO_EDGES: NodeEdges = { into: new Map(), outOf: new Map() };

/**
 * Past this share of a graph's nodes read one by one from the saved endpoints, the rest are
 * grouped from the edge list at once: a walk over the open part of a young project (`next`'s
 * ranking, 2,000 open tasks) reads most nodes, and each saved entry costs a lookup, a checksum
 * and a parse (about 40 us in a fresh process) where grouping costs a few us a node. A point read
 * stays well under it, and so does a walk of a mature project, most of whose nodes are done.
 */
const WHOLE_LIST_SHARE = 1 / 16;
/** A graph this small is read one node at a time to the end: grouping it saves nothing worth a rule. */
const WHOLE_LIST_MIN_READS = 64;

/**
 * The edges of a graph by endpoint as saved with it (a checkpoint's endpoint index): a command
 * that looks at a few nodes reads their edges, not the whole edge list.
 */
export interface SavedEdges {
  /**
   * The edges into and out of node `id` as saved (none for a node the save does not know), or null
   * when the saved index cannot be used (damaged): the index is then built from the edge list.
   */
  of(id: NodeId): { into: readonly Edge[]; outOf: readonly Edge[] } | null;
  /**
   * How many nodes the save holds, when it says so without reading them (a checkpoint's slot
   * table does): what the share of nodes read one by one is taken of, so that counting the
   * graph's nodes does not parse a checkpoint's whole id list (940 KB at 50k nodes).
   */
  nodes?(): number | null;
}

/**
 * Edge lookups by endpoint, kept current edge by edge (a batch of N edge changes costs O(N), not
 * N rebuilds). Rules that walk the graph (derived status, cycles, supersede chains) use it so that
 * a command over tens of thousands of nodes stays linear instead of scanning the edge list per
 * node. Lists are replaced, never changed in place, so a caller may change edges while iterating a
 * list it got. It belongs to one graph's StateIndexes (project-state.ts): whoever changes that
 * graph's edges tells it (`added`, `removed`).
 *
 * Given edges saved by endpoint (`SavedEdges`), it reads the edges of each node it is asked
 * about, once, and applies the edge changes made since; otherwise (once the saved ones prove
 * damaged, or once a walk has read a good share of the nodes: WHOLE_LIST_SHARE) it groups the
 * graph's whole edge list on first use.
 */
export class GraphIndex {
  private incoming: Adjacency | null = null;
  private outgoing: Adjacency | null = null;
  /** The nodes whose edges were read from `saved`, with the changes since applied. */
  private readonly read = new Map<NodeId, NodeEdges>();
  /** The edge changes made since the graph was saved, in order (applied to a node's saved edges when it is read). */
  private changes: { added: boolean; edge: Edge }[] = [];
  /** How many times the whole edge list was grouped (tests count them: a point read groups none). */
  wholeGroupings = 0;
  /** How many nodes read from the saved endpoints hold edge lists of their own (tests count them: a node without edges holds none). */
  ownLists = 0;
  /** How many nodes are read one by one from the saved endpoints before the whole list is grouped instead (worked out once). */
  private wholeListAfter: number | undefined;

  constructor(
    private readonly graph: Graph,
    private saved: SavedEdges | null = null,
  ) {}

  /** Edges of `type` that end at `id` (for BLOCKS: the blockers of `id`). Do not modify it. */
  into(id: NodeId, type: EdgeType): readonly Edge[] {
    const node = this.savedNode(id);
    if (node) return node.into.get(type) ?? NONE;
    return this.incomingMap().get(type)?.get(id) ?? NONE;
  }

  /** Edges of `type` that start at `id` (for BLOCKS: what `id` blocks). Do not modify it. */
  outOf(id: NodeId, type: EdgeType): readonly Edge[] {
    const node = this.savedNode(id);
    if (node) return node.outOf.get(type) ?? NONE;
    return this.outgoingMap().get(type)?.get(id) ?? NONE;
  }

  /**
   * The saved edges it reads, and the nodes whose edges changed since (for a rewrite of the save
   * to copy the others' as they were); null when it reads none.
   */
  savedChanges(): { saved: SavedEdges; changed: ReadonlySet<NodeId> } | null {
    if (!this.saved) return null;
    const changed = new Set<NodeId>();
    for (const { edge } of this.changes) changed.add(edge.from).add(edge.to);
    return { saved: this.saved, changed };
  }

  /** Drops what it holds (after edge changes were undone in place): built again from the edge list on next use. */
  invalidate(): void {
    this.incoming = null;
    this.outgoing = null;
    this.dropSaved();
  }

  /** Records `edge`, just appended to the graph's edges. */
  added(edge: Edge): void {
    if (this.incoming) replaceList(this.incoming, edge.type, edge.to, (list) => [...list, edge]);
    if (this.outgoing) replaceList(this.outgoing, edge.type, edge.from, (list) => [...list, edge]);
    if (this.saved) this.changeSaved(true, edge);
  }

  /** Forgets `edge` (the stored object), just removed from the graph's edges. */
  removed(edge: Edge): void {
    const without = (list: readonly Edge[]) => list.filter((existing) => existing !== edge);
    if (this.incoming) replaceList(this.incoming, edge.type, edge.to, without);
    if (this.outgoing) replaceList(this.outgoing, edge.type, edge.from, without);
    if (this.saved) this.changeSaved(false, edge);
  }

  /**
   * WHOLE_LIST_SHARE of the graph's nodes, counted once, by the save where it can say (a count of
   * a lazily read graph parses its id list: a context reading the edges of 130 nodes at 50k paid
   * that at every lookup past 64; the nodes added since the save are too few to move the share).
   */
  private readsBeforeWholeList(): number {
    this.wholeListAfter ??= (this.saved?.nodes?.() ?? nodeCount(this.graph)) * WHOLE_LIST_SHARE;
    return this.wholeListAfter;
  }

  private incomingMap(): Adjacency {
    this.incoming ??= this.grouped((edge) => edge.to);
    return this.incoming;
  }

  private outgoingMap(): Adjacency {
    this.outgoing ??= this.grouped((edge) => edge.from);
    return this.outgoing;
  }

  private grouped(key: (edge: Edge) => NodeId): Adjacency {
    this.wholeGroupings += 1;
    return groupBy(edgesOf(this.graph), key);
  }

  /** The edges of `id` read from the saved ones, or null when there are none to read (or they are damaged). */
  private savedNode(id: NodeId): NodeEdges | null {
    if (!this.saved) return null;
    const known = this.read.get(id);
    if (known) return known;
    if (this.read.size >= WHOLE_LIST_MIN_READS && this.read.size >= this.readsBeforeWholeList()) {
      this.dropSaved();
      return null;
    }
    const saved = this.saved.of(id);
    if (!saved) {
      this.dropSaved();
      return null;
    }
    let node = saved.into.length === 0 && saved.outOf.length === 0 ? NO_EDGES : this.ownEdges(byType(saved.into), byType(saved.outOf));
    for (const { added, edge } of this.changes) {
      if (edge.from !== id && edge.to !== id) continue;
      if (node === NO_EDGES) node = this.ownEdges(new Map(), new Map());
      applyTo(node, id, added, edge);
    }
    this.read.set(id, node);
    return node;
  }

  private ownEdges(into: Map<EdgeType, Edge[]>, outOf: Map<EdgeType, Edge[]>): NodeEdges {
    this.ownLists += 1;
    return { into, outOf };
  }

  private changeSaved(added: boolean, edge: Edge): void {
    this.changes.push({ added, edge });
    this.applyToRead(edge.from, added, edge);
    if (edge.to !== edge.from) this.applyToRead(edge.to, added, edge);
  }

  /** Applies an edge change to node `id`'s edges, if they were read (giving it lists of its own first). */
  private applyToRead(id: NodeId, added: boolean, edge: Edge): void {
    let node = this.read.get(id);
    if (!node) return;
    if (node === NO_EDGES) this.read.set(id, (node = this.ownEdges(new Map(), new Map())));
    applyTo(node, id, added, edge);
  }

  private dropSaved(): void {
    this.saved = null;
    this.read.clear();
    this.changes = [];
  }
}

function byType(edges: readonly Edge[]): Map<EdgeType, Edge[]> {
  const map = new Map<EdgeType, Edge[]>();
  for (const edge of edges) {
    const list = map.get(edge.type);
    if (list) list.push(edge);
    else map.set(edge.type, [edge]);
  }
  return map;
}

/** Applies one edge change to the edges of node `id` (a saved edge is another object than the graph's: matched by value). */
function applyTo(node: NodeEdges, id: NodeId, added: boolean, edge: Edge): void {
  const change = (lists: Map<EdgeType, Edge[]>) => {
    const list = lists.get(edge.type) ?? [];
    if (added) lists.set(edge.type, [...list, edge]);
    else {
      const at = list.findIndex((existing) => existing.from === edge.from && existing.to === edge.to);
      if (at >= 0) lists.set(edge.type, [...list.slice(0, at), ...list.slice(at + 1)]);
    }
  };
  if (edge.to === id) change(node.into);
  if (edge.from === id) change(node.outOf);
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
