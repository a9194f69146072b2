import type { GraphNode, NodeId } from '../domain/model.js';
import { assertNodeShape } from './state-validation.js';
import { invalidFile } from './storage-error.js';

/** What a checkpoint is read from: its bytes in memory, or a file opened for reading. */
export interface ByteSource {
  readonly size: number;
  bytes(start: number, end: number): Buffer;
  /** Releases what the source holds (a file's descriptor); absent for bytes in memory. */
  close?(): void;
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

/**
 * The nodes of one checkpoint, read as they are used: a command that reads ten nodes of fifty
 * thousand parses ten. `record` is the graph's node map: each node of the file is an accessor
 * that parses it on first read and keeps it in `values` (an accessor is never redefined as a
 * value: V8 copies a fast object's whole layout on each redefinition, quadratic at 1k nodes), so
 * the map behaves as an ordinary record (`Object.keys` lists ids without parsing; `in`,
 * assignment and `delete` work; spreading or cloning it parses everything) and every node it
 * hands out is plain data. `plain` gives an ordinary object instead, every node parsed (a process
 * that keeps the state reads them all sooner or later). A malformed node is a STORAGE_ERROR
 * naming it, when it is read.
 *
 * It also remembers each node's checkpoint entry (`"id":{...}`) as read or last encoded: a change
 * to a node puts a new object in the map, never edits one in place, so while the map holds the
 * same object the entry is current, and the next checkpoint copies it instead of encoding the
 * node again (the server rewrites 59 MB at 50k nodes every few MB of ledger).
 *
 * Its source stays open until `close`: its owner (the store) closes it once nothing it handed
 * out can read a node from it any more; a read after that is a STORAGE_ERROR, never a read of a
 * descriptor reused meanwhile.
 */
export class CheckpointNodes {
  readonly record: Record<NodeId, GraphNode> = {};
  /** The nodes read or written through the accessors, by id. */
  private readonly values = new Map<NodeId, GraphNode>();
  private readonly entries = new Map<NodeId, { node: GraphNode; entry: Buffer }>();
  private positions: Map<NodeId, number> | null = null;
  private open = true;

  constructor(
    private readonly source: ByteSource,
    private readonly ids: readonly NodeId[],
    private readonly spanOf: (position: number) => NodeSpan,
    private readonly path: string,
  ) {
    ids.forEach((id, position) => {
      Object.defineProperty(this.record, id, {
        get: () => this.values.get(id) ?? this.read(id, position),
        set: (node: GraphNode) => this.values.set(id, node),
        enumerable: true,
        configurable: true,
      });
    });
  }

  /** A plain node map of every node, each parsed (for a process that keeps its state). */
  plain(): Record<NodeId, GraphNode> {
    const plain: Record<NodeId, GraphNode> = {};
    for (const id of Object.keys(this.record)) plain[id] = this.record[id]!;
    return plain;
  }

  /**
   * The checkpoint entry of node `id` as `node` (default: as the map holds it now): its bytes as
   * read when unread or unchanged since; else encoded now (and remembered).
   */
  entry(id: NodeId, node?: GraphNode): Buffer {
    if (node === undefined && this.isUnread(id)) {
      const span = this.spanOf(this.positionOf(id));
      return this.source.bytes(span.key, span.end);
    }
    node ??= this.record[id]!;
    const known = this.entries.get(id);
    if (known?.node === node) return known.entry;
    const entry = Buffer.from(`${JSON.stringify(id)}:${JSON.stringify(node)}`);
    this.entries.set(id, { node, entry });
    return entry;
  }

  /** Releases the source; nodes not read by then cannot be read any more. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.source.close?.();
  }

  private isUnread(id: NodeId): boolean {
    return !this.values.has(id) && Object.getOwnPropertyDescriptor(this.record, id)?.get !== undefined;
  }

  private positionOf(id: NodeId): number {
    this.positions ??= new Map(this.ids.map((known, position) => [known, position]));
    return this.positions.get(id)!;
  }

  private read(id: NodeId, position: number): GraphNode {
    const node = this.parse(id, position);
    this.values.set(id, node);
    return node;
  }

  private parse(id: NodeId, position: number): GraphNode {
    if (!this.open) throw invalidFile(this.path, `node ${id} was read after the checkpoint was closed (a lazy node map outlived its call)`);
    const span = this.spanOf(position);
    const line = this.source.bytes(span.key, span.end + 1);
    if (line.length !== span.end + 1 - span.key || line[line.length - 1] !== (span.last ? 0x0a : 0x2c)) throw invalidFile(this.path, `the line of node ${id} does not end where the node offsets say`);
    if (line.toString('utf8', 0, span.start - span.key) !== `${JSON.stringify(id)}:`) throw invalidFile(this.path, `the line of node ${id} is keyed by another id`);
    let node: unknown;
    try {
      node = JSON.parse(line.toString('utf8', span.start - span.key, line.length - 1));
    } catch {
      throw invalidFile(this.path, `node ${id} is not JSON`);
    }
    assertNodeShape(node, id, this.path);
    this.entries.set(id, { node, entry: line.subarray(0, line.length - 1) });
    return node;
  }
}
