import type { GraphNode, NodeId } from '../domain/model.js';
import { assertNodeShape } from './state-validation.js';
import { invalidFile } from './storage-error.js';

/** What a checkpoint is read from: its bytes in memory, or a file opened for reading. */
export interface ByteSource {
  readonly size: number;
  bytes(start: number, end: number): Buffer;
}

/** Where a node's JSON lies in the checkpoint. */
export interface NodeSpan {
  /** Where its line starts, with the key naming it. */
  key: number;
  start: number;
  end: number;
  /** The last node's line ends with a newline, the others with a comma and one. */
  last: boolean;
}

/** What the store knows of a lazy node map besides its nodes: which are still raw bytes. */
interface LazyNodes {
  /** Every id, in the order the checkpoint holds them, then the ones added since. */
  readonly ids: Set<NodeId>;
  /** Nodes not parsed yet, and their position in the checkpoint. */
  readonly pending: Map<NodeId, number>;
  readonly spanOf: (position: number) => NodeSpan;
  readonly source: ByteSource;
}

const lazyMaps = new WeakMap<object, LazyNodes>();

/**
 * A graph's node map that parses a node the first time it is read. The nodes it hands out are
 * plain objects (they survive `structuredClone` and outlive the file), so a command that reads
 * ten nodes of fifty thousand parses ten. It behaves as an ordinary record: `Object.keys`,
 * `Object.values`, `in`, assignment and `delete` all work (whole-graph reads parse everything).
 * A malformed node is a STORAGE_ERROR naming it, when it is read.
 */
export function lazyNodeMap(source: ByteSource, ids: readonly NodeId[], spanOf: (position: number) => NodeSpan, path: string): Record<NodeId, GraphNode> {
  const lazy: LazyNodes = { ids: new Set(ids), pending: new Map(ids.map((id, position) => [id, position])), spanOf, source };
  const target: Record<NodeId, GraphNode> = {};
  const parse = (key: string | symbol): void => {
    if (typeof key !== 'string') return;
    const position = lazy.pending.get(key);
    if (position === undefined) return;
    target[key] = parseNode(source, spanOf(position), key, path);
    lazy.pending.delete(key);
  };
  // A node written keeps its place in the order; one deleted leaves it.
  const written = (key: string | symbol): void => {
    if (typeof key !== 'string') return;
    lazy.pending.delete(key);
    lazy.ids.add(key);
  };
  const map = new Proxy(target, {
    get(object, key) {
      parse(key);
      return Reflect.get(object, key);
    },
    getOwnPropertyDescriptor(object, key) {
      parse(key);
      return Reflect.getOwnPropertyDescriptor(object, key);
    },
    has(object, key) {
      return (typeof key === 'string' && lazy.pending.has(key)) || Reflect.has(object, key);
    },
    ownKeys() {
      return [...lazy.ids];
    },
    set(object, key, value) {
      written(key);
      return Reflect.set(object, key, value);
    },
    defineProperty(object, key, descriptor) {
      written(key);
      return Reflect.defineProperty(object, key, descriptor);
    },
    deleteProperty(object, key) {
      if (typeof key === 'string') {
        lazy.pending.delete(key);
        lazy.ids.delete(key);
      }
      return Reflect.deleteProperty(object, key);
    },
  });
  lazyMaps.set(map, lazy);
  return map;
}

/** The ids of a node map without parsing any node (for a lazy one, `Object.keys` would parse them all). */
export function nodeIds(nodes: Record<NodeId, GraphNode>): NodeId[] {
  const lazy = lazyMaps.get(nodes);
  return lazy ? [...lazy.ids] : Object.keys(nodes);
}

/**
 * The checkpoint entry (`"id":{...}`) each node object was read from, or last encoded as. A change
 * to a node puts a new object in the map, never edits one in place, so an object's entry never
 * changes: a checkpoint copies the bytes of every node it did not change instead of encoding it
 * again (the server rewrites its whole checkpoint, 59 MB at 50k nodes, every few MB of ledger).
 * A kept graph's nodes thus keep the checkpoint's bytes alive as long as they live.
 */
const entries = new WeakMap<GraphNode, Buffer>();

/** A node's checkpoint entry: as read, when it was never parsed or has not changed since; else encoded now (and remembered). */
export function nodeEntry(nodes: Record<NodeId, GraphNode>, id: NodeId): Buffer {
  const lazy = lazyMaps.get(nodes);
  const position = lazy?.pending.get(id);
  if (lazy && position !== undefined) {
    const span = lazy.spanOf(position);
    return lazy.source.bytes(span.key, span.end);
  }
  const node = nodes[id]!;
  let entry = entries.get(node);
  if (!entry) entries.set(node, (entry = Buffer.from(`${JSON.stringify(id)}:${JSON.stringify(node)}`)));
  return entry;
}

/** A plain copy of a node map, every node parsed (for whole-state reads and what must be cloned). */
export function plainNodes(nodes: Record<NodeId, GraphNode>): Record<NodeId, GraphNode> {
  if (!lazyMaps.has(nodes)) return nodes;
  const plain: Record<NodeId, GraphNode> = {};
  for (const id of nodeIds(nodes)) plain[id] = nodes[id]!;
  return plain;
}

function parseNode(source: ByteSource, span: NodeSpan, id: NodeId, path: string): GraphNode {
  const line = source.bytes(span.key, span.end + 1);
  if (line.length !== span.end + 1 - span.key || line[line.length - 1] !== (span.last ? 0x0a : 0x2c)) throw invalidFile(path, `the line of node ${id} does not end where the node offsets say`);
  if (line.toString('utf8', 0, span.start - span.key) !== `${JSON.stringify(id)}:`) throw invalidFile(path, `the line of node ${id} is keyed by another id`);
  let node: unknown;
  try {
    node = JSON.parse(line.toString('utf8', span.start - span.key, line.length - 1));
  } catch {
    throw invalidFile(path, `node ${id} is not JSON`);
  }
  assertNodeShape(node, id, path);
  entries.set(node, line.subarray(0, line.length - 1));
  return node;
}
