import type { SavedEdges } from '../domain/graph-index.js';
import { EDGE_TYPES, type Edge, type EdgeType, type NodeId } from '../domain/model.js';
import { crc32, crc32OfText } from './crc32.js';

/**
 * A graph's edges by endpoint, as the checkpoint saves them beside the edge list (the heads line's
 * `endpoints` section): a command that looks at a few nodes parses their edges, not 3 MB of edges
 * at 50k nodes. One entry per node, in the order of the checkpoint's node ids, found through a
 * table of fixed-width offsets (the section's first member):
 *
 *   ["<8 hex digits per node, and one more>",["<crc32>","<id>",[<in>],[<out>]],...]
 *
 * `in` lists the edges into the node as `<type code><from>`, `out` those out of it as
 * `<type code><to>`, each in the order of the edge list. An entry carries the CRC-32 of what follows
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
  const entries: string[] = [];
  const offsets: number[] = [];
  let offset = TABLE_START + OFFSET_DIGITS * (ids.length + 1) + 2;
  for (let from = 0; from < ids.length; from += slice) {
    offset = encodeEntries(entries, offsets, offset, ids, lists, from, Math.min(from + slice, ids.length));
    yield;
  }
  offsets.push(offset);
  let table = '';
  for (const value of offsets) table += value.toString(16).padStart(OFFSET_DIGITS, '0');
  if (table.length !== OFFSET_DIGITS * offsets.length) return null;
  return Buffer.from(`["${table}"${ids.length === 0 ? '' : ','}${entries.join(',')}]`);
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
    const payload = `${JSON.stringify(ids[position])},${listText(lists.into.get(position))},${listText(lists.outOf.get(position))}`;
    const entry = `["${hex(crc32OfText(payload))}",${payload}]`;
    offsets.push(next);
    entries.push(entry);
    // Each entry is followed by a comma, or by the closing bracket after the last.
    next += (ASCII.test(entry) ? entry.length : Buffer.byteLength(entry)) + 1;
  }
  return next;
}

const ASCII = /^[\x00-\x7f]*$/;

function listText(list: string[] | undefined): string {
  return list === undefined ? '[]' : JSON.stringify(list);
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

const NO_EDGES = { into: [], outOf: [] };

/**
 * The saved endpoints of a checkpoint, read a node at a time: `read` gives bytes of the section
 * (offsets from its start), `positionOf` a node's position among the checkpoint's ids.
 */
export class SavedEndpoints implements SavedEdges {
  constructor(
    private readonly read: (start: number, end: number) => Buffer,
    private readonly size: number,
    private readonly count: number,
    private readonly positionOf: (id: NodeId) => number | undefined,
  ) {}

  of(id: NodeId): { into: Edge[]; outOf: Edge[] } | null {
    const position = this.positionOf(id);
    if (position === undefined) return NO_EDGES;
    try {
      return this.entry(id, position);
    } catch {
      return null;
    }
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
    if (hex(crc32(payload)) !== bytes.toString('latin1', 2, 10)) return null;
    const [named, into, outOf] = JSON.parse(`[${payload.toString('utf8')}]`) as [unknown, unknown, unknown];
    if (named !== id) return null;
    const incoming = edgesOf(into, (code, other) => ({ from: other, to: id, type: code }));
    const outgoing = edgesOf(outOf, (code, other) => ({ from: id, to: other, type: code }));
    return incoming && outgoing ? { into: incoming, outOf: outgoing } : null;
  }
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
