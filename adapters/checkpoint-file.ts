import fs from 'graceful-fs';
import type { Graph, GraphNode, NodeId } from '../domain/model.js';
import { assertGraphHeaderShape, assertNodeShape } from './state-validation.js';
import { invalidFile } from './storage-error.js';

export interface LedgerRef {
  file: string;
  bytes: number;
}

/** The graph as of a ledger position, as plain data. */
export interface Checkpoint {
  graph: Graph;
  ledger: LedgerRef;
}

const MAGIC = 'TDCK1 ';
const PREFIX_BYTES = MAGIC.length + 12 + 1;
const NEWLINE = Buffer.from('\n');

/**
 * The checkpoint file: a fixed-size prefix giving the header's length; a JSON header (the graph
 * without its nodes, the ledger position, node ids, where each node's line ends, and the length
 * of a section kept empty: files written before plain loading held node heads there); that
 * section; then one JSON line per node.
 */
export function encodeCheckpoint(graph: Graph, ledger: LedgerRef): Buffer {
  const ids = Object.keys(graph.nodes);
  const lines: Buffer[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const id of ids) {
    const line = Buffer.from(JSON.stringify(graph.nodes[id]));
    lines.push(line, NEWLINE);
    offset += line.length;
    ends.push(offset);
    offset += 1;
  }
  const { nodes: _nodes, ...rest } = graph;
  const header = Buffer.from(JSON.stringify({ ...rest, ledger, ids, ends, head_bytes: 0 }));
  const prefix = Buffer.from(`${MAGIC}${String(header.length).padStart(12, '0')}\n`);
  return Buffer.concat([prefix, header, NEWLINE, NEWLINE, ...lines]);
}

/**
 * Reads the whole file and parses every node into plain objects: what it returns outlives the
 * file and the lock, and survives `structuredClone`.
 */
export function readCheckpoint(path: string): Checkpoint {
  return decodeCheckpoint(fs.readFileSync(path), path);
}

export function decodeCheckpoint(bytes: Buffer, path: string): Checkpoint {
  const size = bytes.length;
  const prefix = bytes.toString('latin1', 0, Math.min(size, PREFIX_BYTES));
  if (prefix.length < PREFIX_BYTES || !prefix.startsWith(MAGIC) || !/^\d{12}\n$/.test(prefix.slice(MAGIC.length))) {
    throw invalidFile(path, size === 0 ? 'it is empty' : notACheckpoint(prefix));
  }
  const headerLength = Number(prefix.slice(MAGIC.length, MAGIC.length + 12));
  if (PREFIX_BYTES + headerLength + 1 > size) throw invalidFile(path, 'it is truncated inside its header');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength));
  } catch {
    throw invalidFile(path, 'its header is not JSON');
  }
  const { ids, ends, ledger, head_bytes: headBytes, ...graphFields } = header as Record<string, unknown>;
  assertGraphHeaderShape({ ...graphFields, nodes: {} }, path);
  if (!Number.isInteger(headBytes) || (headBytes as number) < 0) throw invalidFile(path, 'its head section length is malformed');
  const sectionStart = PREFIX_BYTES + headerLength + 1 + (headBytes as number) + 1;
  const layout = assertLayout(ids, ends, size - sectionStart, path);
  const nodes = parseNodes(bytes.subarray(sectionStart), layout, path);
  return { graph: { ...(graphFields as unknown as Omit<Graph, 'nodes'>), nodes }, ledger: assertLedgerRef(ledger, path) };
}

/**
 * All nodes in one parse: the section's newlines become commas in place (the buffer is ours and
 * read once), so the section is one JSON array without copying it. Only on failure are the lines
 * parsed one by one, by their offsets, to name the node at fault.
 */
function parseNodes(section: Buffer, layout: { ids: NodeId[]; ends: number[] }, path: string): Record<NodeId, GraphNode> {
  const nodes: Record<NodeId, GraphNode> = {};
  if (layout.ids.length === 0) return nodes;
  for (const end of layout.ends) {
    if (section[end] !== 0x0a) throw invalidFile(path, 'its node offsets do not match its node lines');
    section[end] = 0x2c;
  }
  section[section.length - 1] = 0x5d;
  let parsed: unknown[] | null;
  try {
    parsed = JSON.parse(`[${section.toString('utf8')}`) as unknown[];
  } catch {
    parsed = null;
  }
  if (parsed === null || parsed.length !== layout.ids.length) parsed = layout.ids.map((id, at) => parseNode(lineAt(section, layout.ends, at), id, path));
  layout.ids.forEach((id, position) => {
    const node = parsed![position];
    assertNodeShape(node, id, path);
    nodes[id] = node;
  });
  return nodes;
}

function lineAt(section: Buffer, ends: number[], position: number): Buffer {
  return section.subarray(position === 0 ? 0 : ends[position - 1]! + 1, ends[position]!);
}

/** What a damaged checkpoint's header still tells, if its header is intact: for salvage, never for loading. */
export function salvageHeader(bytes: Buffer): { revision?: unknown; fence_generation?: unknown; ledger?: { file?: unknown } } | null {
  try {
    const prefix = bytes.toString('latin1', 0, PREFIX_BYTES);
    if (!prefix.startsWith(MAGIC)) return null;
    const headerLength = Number(prefix.slice(MAGIC.length, MAGIC.length + 12));
    const header: unknown = JSON.parse(bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength));
    return typeof header === 'object' && header !== null ? header : null;
  } catch {
    return null;
  }
}

/** A JSON document here is a state from before schema 1 (or a hand edit): say how to import it. */
function notACheckpoint(start: string): string {
  return start.trimStart().startsWith('{')
    ? 'it is a JSON document, not a schema-1 checkpoint (a project written before schema 1? run taskdag migrate --dry-run)'
    : 'it does not start with a checkpoint header';
}

function assertLayout(ids: unknown, ends: unknown, sectionBytes: number, path: string): { ids: NodeId[]; ends: number[] } {
  if (!Array.isArray(ids) || !Array.isArray(ends) || ids.length !== ends.length) throw invalidFile(path, 'its node index is malformed');
  if (!ids.every((id) => typeof id === 'string') || new Set(ids).size !== ids.length) throw invalidFile(path, 'its node ids are malformed');
  let previous = -1;
  for (const end of ends) {
    if (!Number.isInteger(end) || end <= previous) throw invalidFile(path, 'its node offsets are malformed');
    previous = end;
  }
  if (previous + 1 !== sectionBytes) throw invalidFile(path, 'its node section is truncated or has trailing bytes');
  return { ids: ids as NodeId[], ends: ends as number[] };
}

function assertLedgerRef(value: unknown, path: string): LedgerRef {
  const ledger = value as Partial<LedgerRef> | undefined;
  if (!ledger || !/^ledger\.\d+\.jsonl$/.test(String(ledger.file)) || !Number.isInteger(ledger.bytes) || ledger.bytes! < 0) {
    throw invalidFile(path, 'its ledger reference is malformed');
  }
  return { file: ledger.file!, bytes: ledger.bytes! };
}

function parseNode(bytes: Buffer, id: NodeId, path: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidFile(path, `node ${id} is not JSON`);
  }
}
