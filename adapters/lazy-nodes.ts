import type { GraphNode, NodeId } from '../domain/model.js';
import { headOf, headProxy, type NodeHead } from './node-head.js';

/** Where a node's JSON sits, and how to fetch bytes of the node section. */
export interface NodeSource {
  ids: NodeId[];
  /** `ends[i]`: offset in the node section of the newline that ends node i. */
  ends: number[];
  read(start: number, end: number): Buffer;
  parse(bytes: Buffer, id: NodeId): GraphNode;
  /** The heads of every node, in `ids` order (see node-head.ts). */
  heads(): NodeHead[];
}

/** Past this many single-node reads, fetching the whole section at once is cheaper. */
const BULK_AFTER = 32;

/**
 * A `Record<NodeId, GraphNode>` whose nodes are parsed only when touched. Commands that look at a
 * handful of nodes (show, take, update, add-task) then pay for those, not for the whole graph.
 * Enumerating the nodes (status, context, search) yields head-backed nodes: their head fields come
 * from the checkpoint's compact head section, and any other field parses that one node. Writes go
 * to the cache like a plain object.
 */
export class LazyNodes {
  private readonly index = new Map<NodeId, number>();
  private readonly cache = new Map<NodeId, GraphNode>();
  private readonly removed = new Set<NodeId>();
  private section: Buffer | null = null;
  private singleReads = 0;
  private heads: NodeHead[] | null = null;

  constructor(private readonly source: NodeSource) {
    source.ids.forEach((id, position) => this.index.set(id, position));
  }

  /** The plain-object face the domain works with. */
  record(): Record<NodeId, GraphNode> {
    return new Proxy({} as Record<NodeId, GraphNode>, {
      get: (_target, key) => (typeof key === 'string' ? this.get(key) : undefined),
      set: (_target, key, value) => {
        if (typeof key !== 'string') return false;
        this.cache.set(key, value as GraphNode);
        this.removed.delete(key);
        return true;
      },
      deleteProperty: (_target, key) => {
        if (typeof key === 'string') {
          this.cache.delete(key);
          this.removed.add(key);
        }
        return true;
      },
      has: (_target, key) => typeof key === 'string' && this.has(key),
      ownKeys: () => {
        this.heads ??= this.source.heads();
        return this.keys();
      },
      getOwnPropertyDescriptor: (_target, key) => {
        if (typeof key !== 'string' || !this.has(key)) return undefined;
        return { value: this.get(key), writable: true, enumerable: true, configurable: true };
      },
    });
  }

  /** Raw bytes of a node never parsed or written since loading, to copy into a new checkpoint. */
  untouchedBytes(id: NodeId): Buffer | null {
    if (this.cache.has(id) || this.removed.has(id)) return null;
    const position = this.index.get(id);
    return position === undefined ? null : this.slice(position);
  }

  /** The head of a node, without parsing it when the checkpoint's head still describes it. */
  headOf(id: NodeId, node: GraphNode): NodeHead {
    const position = this.index.get(id);
    const untouched = position !== undefined && !this.cache.has(id) && !this.removed.has(id);
    return untouched ? (this.heads ??= this.source.heads())[position]! : headOf(node);
  }

  /** Loads the whole section now (when every node is about to be read). */
  readAll(): void {
    if (this.section === null && this.source.ids.length > 0) {
      this.section = this.source.read(0, this.source.ends[this.source.ends.length - 1]! + 1);
    }
  }

  private has(id: NodeId): boolean {
    return this.cache.has(id) || (!this.removed.has(id) && this.index.has(id));
  }

  private keys(): NodeId[] {
    const keys = this.source.ids.filter((id) => !this.removed.has(id));
    for (const id of this.cache.keys()) if (!this.index.has(id)) keys.push(id);
    return keys;
  }

  private get(id: NodeId): GraphNode | undefined {
    const cached = this.cache.get(id);
    if (cached !== undefined || this.removed.has(id)) return cached;
    const position = this.index.get(id);
    if (position === undefined) return undefined;
    const parse = () => this.source.parse(this.slice(position), id);
    const node = this.heads ? headProxy(this.heads[position]!, parse) : parse();
    this.cache.set(id, node);
    return node;
  }

  private slice(position: number): Buffer {
    const start = position === 0 ? 0 : this.source.ends[position - 1]! + 1;
    const end = this.source.ends[position]!;
    if (this.section === null && ++this.singleReads > BULK_AFTER) this.readAll();
    return this.section ? this.section.subarray(start, end) : this.source.read(start, end);
  }
}
