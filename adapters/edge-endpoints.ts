import type { SavedEdges } from '../domain/graph-index.js';
import { EDGE_TYPES, type Edge, type EdgeType, type NodeId } from '../domain/model.js';
import { crc32, crc32OfText } from './crc32.js';
import { eightHexDigits } from './hex-digits.js';

/**
 * A graph's edges by endpoint, as the checkpoint saves them beside the edge list (the heads line's
 * `endpoints` section): a command that looks at a few nodes parses their edges, not 3 MB of edges
 * at 50k nodes. One entry per node, in the order of the checkpoint's node ids, found through a
 * table of fixed-width offsets (the section's first member):
 *
 *   ["<8 hex digits per node, and one more>",["<crc32>","<id>",[<in>],[<out>]],...]
 *
 * `in` lists the edges into the node as `<type code><from>`, `out` those out of it as
 * `<type code><to>`, each by type (`B`, `S`, `D`) and each type's in the order of the edge list. An entry carries the CRC-32 of what follows
 * its checksum and names its node, so a damaged entry or table is found when read, and the edges
 * are then grouped from the edge list instead (derived data is never trusted over its source).
 */
const TYPE_CODES: Record<EdgeType, string> = { BLOCKS: 'B', SUPERSEDES: 'S', DERIVED_FROM: 'D' };
const TYPES_BY_CODE = new Map<string, EdgeType>(EDGE_TYPES.map((type) => [TYPE_CODES[type], type]));
const OFFSET_DIGITS = 8;
/** `["` before the table, `",` after it. */
const TABLE_START = 2;

/**
 * The endpoints section of `edges` over nodes `ids`, built in slices of `slice` items with a yield
 * between them; null when some edge is not one the section can hold (an end that is no node, an
 * unknown type: a damaged edge list is copied as it is, and read from the list when used).
 */
export function* endpointSection(ids: readonly NodeId[], edges: readonly unknown[], slice: number): Generator<void, Buffer | null> {
  const lists = yield* listsOf(ids, edges, slice);
  if (!lists) return null;
  const entries: string[] = [];
  const offsets: number[] = [];
  let offset = TABLE_START + OFFSET_DIGITS * (ids.length + 1) + 2;
  for (let from = 0; from < ids.length; from += slice) {
    offset = encodeEntries(entries, offsets, offset, ids, lists, from, Math.min(from + slice, ids.length));
    yield;
  }
  const table = tableOf(offsets, offset);
  return table === null ? null : Buffer.from(`["${table}"${entries.length === 0 ? '' : ','}${entries.join(',')}]`);
}

/**
 * Endpoints to copy into a checkpoint rewrite: the section of the checkpoint read (`bytes`) and
 * where each of its `count` entries starts (`offsets`, one more for where one after the last
 * would), for nodes whose position and edges have not changed; and the edges of every node whose
 * edges changed since, or that is new.
 */
export interface EndpointReuse {
  count: number;
  bytes: Buffer;
  offsets: ArrayLike<number>;
  changed: ReadonlyMap<NodeId, { into: readonly Edge[]; outOf: readonly Edge[] }>;
}

/**
 * The endpoints section over nodes `ids` from the one a checkpoint read saved: the entries of
 * nodes whose edges did not change are copied as they were (unparsed: a damaged one stays damaged
 * and is found when read), a run of consecutive ones (the commas between them included) at a
 * time, the others encoded from their edges. Costs a copy and the offsets table, not the edge list
 * parsed and grouped again, nor a piece and a lookup a node.
 */
export function* reusedEndpointSection(ids: readonly NodeId[], reuse: EndpointReuse, slice: number): Generator<void, Buffer | null> {
  const pieces: Buffer[] = [];
  const offsets: number[] = [];
  let offset = TABLE_START + OFFSET_DIGITS * (ids.length + 1) + 2;
  const old = reuse.offsets;
  // Where the run of entries copied so far starts among the old ones (-1: none).
  let run = -1;
  const endRun = (end: number) => {
    if (run >= 0) pieces.push(reuse.bytes.subarray(old[run]!, old[end]! - 1));
    run = -1;
  };
  for (let from = 0; from < ids.length; from += slice) {
    for (let position = from; position < Math.min(from + slice, ids.length); position++) {
      const id = ids[position]!;
      const edges = reuse.changed.get(id);
      offsets.push(offset);
      if (!edges && position < reuse.count) {
        // A run goes on across the comma before this entry when that is what the section holds: no
        // entry's checksum covers it, so one damaged there is written afresh, not carried over.
        if (run >= 0 && reuse.bytes[old[position]! - 1] !== COMMA[0]) endRun(position);
        if (run < 0) run = position;
        // The entry and the comma or bracket after it.
        offset += old[position + 1]! - old[position]!;
        continue;
      }
      endRun(position);
      const piece = Buffer.from(entryText(id, codes(edges?.into ?? [], 'from'), codes(edges?.outOf ?? [], 'to')));
      pieces.push(piece);
      offset += piece.length + 1;
    }
    yield;
  }
  endRun(Math.min(ids.length, reuse.count));
  return sectionOf(offsets, offset, pieces);
}

function codes(edges: readonly Edge[], end: 'from' | 'to'): string[] | undefined {
  return edges.length === 0 ? undefined : edges.map((edge) => TYPE_CODES[edge.type] + edge[end]);
}

/** The offsets table: where each entry starts, and `end`, where one after the last would; null past 8 hex digits. */
function tableOf(offsets: number[], end: number): string | null {
  offsets.push(end);
  let table = '';
  for (const value of offsets) table += value.toString(16).padStart(OFFSET_DIGITS, '0');
  return table.length === OFFSET_DIGITS * offsets.length ? table : null;
}

/** The section from its entries and where each starts (`end`: where one after the last would). */
function sectionOf(offsets: number[], end: number, entries: readonly Buffer[]): Buffer | null {
  const table = tableOf(offsets, end);
  if (table === null) return null;
  const pieces: Buffer[] = [Buffer.from(`["${table}"`)];
  for (const entry of entries) pieces.push(COMMA, entry);
  pieces.push(CLOSE);
  return Buffer.concat(pieces);
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** Each node's edges in and out by position; null when some edge is not one the section can hold. */
function* listsOf(ids: readonly NodeId[], edges: readonly unknown[], slice: number): Generator<void, EndpointLists | null> {
  const positions = new Map<NodeId, number>();
  for (let from = 0; from < ids.length; from += slice) {
    for (let position = from; position < Math.min(from + slice, ids.length); position++) positions.set(ids[position]!, position);
    yield;
  }
  if (positions.size !== ids.length) return null;
  const lists: EndpointLists = { into: new Map(), outOf: new Map() };
  for (let from = 0; from < edges.length; from += slice) {
    if (!fileEdges(lists, positions, edges, from, Math.min(from + slice, edges.length))) return null;
    yield;
  }
  return lists;
}

/** Each node's edges in and out, as `<type code><other end>`, by position. */
interface EndpointLists {
  into: Map<number, string[]>;
  outOf: Map<number, string[]>;
}

/** Files edges `from` to `end` under their ends; false when one is not an edge the section can hold. */
function fileEdges(lists: EndpointLists, positions: ReadonlyMap<NodeId, number>, edges: readonly unknown[], from: number, end: number): boolean {
  for (let at = from; at < end; at++) {
    const { from: tail, to, type } = (edges[at] ?? {}) as Partial<Edge>;
    const code = typeof type === 'string' && Object.hasOwn(TYPE_CODES, type) ? TYPE_CODES[type] : undefined;
    const fromAt = typeof tail === 'string' ? positions.get(tail) : undefined;
    const toAt = typeof to === 'string' ? positions.get(to) : undefined;
    if (code === undefined || fromAt === undefined || toAt === undefined) return false;
    append(lists.into, toAt, code + tail);
    append(lists.outOf, fromAt, code + to);
  }
  return true;
}

function append(map: Map<number, string[]>, position: number, item: string): void {
  const list = map.get(position);
  if (list) list.push(item);
  else map.set(position, [item]);
}

/** Encodes the entries of nodes `from` to `end`, noting where each starts; returns where the next starts. */
function encodeEntries(entries: string[], offsets: number[], offset: number, ids: readonly NodeId[], lists: EndpointLists, from: number, end: number): number {
  let next = offset;
  for (let position = from; position < end; position++) {
    const entry = entryText(ids[position]!, lists.into.get(position), lists.outOf.get(position));
    offsets.push(next);
    entries.push(entry);
    // Each entry is followed by a comma, or by the closing bracket after the last.
    next += (ASCII.test(entry) ? entry.length : Buffer.byteLength(entry)) + 1;
  }
  return next;
}

const ASCII = /^[\x00-\x7f]*$/;

/** A node's entry: its checksum, its id, its edges in and out. */
function entryText(id: NodeId, into: string[] | undefined, outOf: string[] | undefined): string {
  const payload = `${JSON.stringify(id)},${listText(byTypeCode(into))},${listText(byTypeCode(outOf))}`;
  return `["${eightHexDigits(crc32OfText(payload))}",${payload}]`;
}

/**
 * A node's edges grouped by type (in EDGE_TYPES' order), each type's in the order of the edge list:
 * how the edge index holds a node's edges, so a rewrite that encodes a changed node's entry from
 * the index writes the bytes the whole encoding does (the reader groups them by type anyway).
 */
function byTypeCode(list: string[] | undefined): string[] | undefined {
  if (list === undefined || list.length < 2) return list;
  let grouped = true;
  for (let at = 1; at < list.length && grouped; at++) grouped = TYPE_RANKS[list[at - 1]![0]!]! <= TYPE_RANKS[list[at]![0]!]!;
  return grouped ? list : EDGE_TYPES.flatMap((type) => list.filter((item) => item[0] === TYPE_CODES[type]));
}

const TYPE_RANKS: Record<string, number> = Object.fromEntries(EDGE_TYPES.map((type, rank) => [TYPE_CODES[type], rank]));

function listText(list: string[] | undefined): string {
  return list === undefined ? '[]' : JSON.stringify(list);
}

const NO_EDGES = { into: [], outOf: [] };

/**
 * A checkpoint's saved endpoints as its graph's edge index reads them (opened on first use), and as
 * a rewrite of that checkpoint copies them (`entries`).
 */
export class CheckpointEndpoints implements SavedEdges {
  private opened: SavedEndpoints | null | undefined;

  constructor(private readonly open: () => SavedEndpoints | null) {}

  of(id: NodeId): { into: readonly Edge[]; outOf: readonly Edge[] } | null {
    return this.endpoints()?.of(id) ?? null;
  }

  entries(): { count: number; bytes: Buffer; offsets: ArrayLike<number> } | null {
    return this.endpoints()?.entries() ?? null;
  }

  nodes(): number | null {
    return this.endpoints()?.nodes() ?? null;
  }

  private endpoints(): SavedEndpoints | null {
    if (this.opened === undefined) this.opened = this.open();
    return this.opened;
  }
}

/**
 * The saved endpoints of a checkpoint, read a node at a time: `read` gives bytes of the section
 * (offsets from its start), `positionOf` a node's position among the checkpoint's ids.
 */
export class SavedEndpoints implements SavedEdges {
  /** The entries read so far, by node: a changed node's is asked for by its saved bucket's check and by the edge index (the file never changes while open). */
  private readonly known = new Map<NodeId, { into: readonly Edge[]; outOf: readonly Edge[] } | null>();

  constructor(
    private readonly read: (start: number, end: number) => Buffer,
    private readonly size: number,
    private readonly count: number,
    private readonly positionOf: (id: NodeId) => number | undefined,
  ) {}

  of(id: NodeId): { into: readonly Edge[]; outOf: readonly Edge[] } | null {
    const position = this.positionOf(id);
    if (position === undefined) return NO_EDGES;
    if (!this.known.has(id)) this.known.set(id, this.entryOrNull(id, position));
    return this.known.get(id)!;
  }

  private entryOrNull(id: NodeId, position: number): { into: readonly Edge[]; outOf: readonly Edge[] } | null {
    try {
      return this.entry(id, position);
    } catch {
      return null;
    }
  }

  /** How many nodes the section has entries for (the checkpoint's, as its slot table counts them), without reading it. */
  nodes(): number {
    return this.count;
  }

  /**
   * Every entry as stored, read at once (for a rewrite to copy): the section's bytes and where each
   * entry starts (and one more, where one after the last would), or null when the table is malformed.
   */
  entries(): { count: number; bytes: Buffer; offsets: ArrayLike<number> } | null {
    const bytes = this.read(0, this.size);
    const tableEnd = TABLE_START + OFFSET_DIGITS * (this.count + 1);
    if (bytes.length !== this.size || bytes.toString('latin1', 0, TABLE_START) !== '["' || bytes[tableEnd] !== 0x22) return null;
    const offsets = new Float64Array(this.count + 1);
    for (let position = 0, previous = tableEnd; position <= this.count; position++) {
      const offset = hexAt(bytes, TABLE_START + OFFSET_DIGITS * position);
      if (offset <= previous || offset > this.size + 1) return null;
      offsets[position] = previous = offset;
    }
    return { count: this.count, bytes, offsets };
  }

  private entry(id: NodeId, position: number): { into: Edge[]; outOf: Edge[] } | null {
    if (position >= this.count) return null;
    const at = TABLE_START + OFFSET_DIGITS * position;
    const bounds = this.read(at, at + 2 * OFFSET_DIGITS).toString('latin1');
    if (!/^[0-9a-f]{16}$/.test(bounds)) return null;
    const start = parseInt(bounds.slice(0, OFFSET_DIGITS), 16);
    const end = parseInt(bounds.slice(OFFSET_DIGITS), 16) - 1;
    if (start < TABLE_START || end - start < 14 || end > this.size) return null;
    const bytes = this.read(start, end);
    if (bytes.length !== end - start || bytes.toString('latin1', 0, 2) !== '["' || bytes.toString('latin1', 10, 12) !== '",' || bytes[bytes.length - 1] !== 0x5d) return null;
    const payload = bytes.subarray(12, bytes.length - 1);
    if (eightHexDigits(crc32(payload)) !== bytes.toString('latin1', 2, 10)) return null;
    const [named, into, outOf] = JSON.parse(`[${payload.toString('utf8')}]`) as [unknown, unknown, unknown];
    if (named !== id) return null;
    const incoming = edgesOf(into, (code, other) => ({ from: other, to: id, type: code }));
    const outgoing = edgesOf(outOf, (code, other) => ({ from: id, to: other, type: code }));
    return incoming && outgoing ? { into: incoming, outOf: outgoing } : null;
  }
}

/** The offset written as OFFSET_DIGITS lowercase hex digits at `at`; -1 when one is not such a digit. */
function hexAt(bytes: Buffer, at: number): number {
  let value = 0;
  for (let index = at; index < at + OFFSET_DIGITS; index++) {
    const byte = bytes[index]!;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function edgesOf(list: unknown, edge: (type: EdgeType, other: NodeId) => Edge): Edge[] | null {
  if (!Array.isArray(list)) return null;
  const edges: Edge[] = [];
  for (const item of list) {
    const type = typeof item === 'string' ? TYPES_BY_CODE.get(item[0]!) : undefined;
    if (type === undefined) return null;
    edges.push(edge(type, (item as string).slice(1)));
  }
  return edges;
}
