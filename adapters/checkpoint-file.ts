import fs from 'graceful-fs';
import type { Graph, GraphNode, NodeId } from '../domain/model.js';
import { LazyNodes } from './lazy-nodes.js';
import { headOf, type NodeHead } from './node-head.js';
import { assertGraphHeaderShape, assertNodeShape } from './state-validation.js';
import { invalidFile } from './storage-error.js';

export interface LedgerRef {
  file: string;
  bytes: number;
}

/** The graph as of a ledger position; its nodes load lazily. `close()` ends lazy access. */
export interface Checkpoint {
  graph: Graph;
  ledger: LedgerRef;
  nodes: LazyNodes;
  close(): void;
}

const MAGIC = 'TDCK1 ';
const PREFIX_BYTES = MAGIC.length + 12 + 1;

/**
 * The checkpoint file: a fixed-size prefix giving the header's length; a JSON header (the graph
 * without its nodes, the ledger position, node ids, where each node's line ends, and the length
 * of the head section); the head section (one JSON array of node heads, see node-head.ts); then
 * one JSON line per node. A reader parses the header, the heads only when it enumerates nodes,
 * and only the full nodes it touches: loading cost follows what a command reads, not graph size.
 */
export function encodeCheckpoint(graph: Graph, ledger: LedgerRef, previous: LazyNodes | null): Buffer {
  const ids = Object.keys(graph.nodes);
  const lines: Buffer[] = [];
  const ends: number[] = [];
  const heads: NodeHead[] = [];
  let offset = 0;
  for (const id of ids) {
    const node = graph.nodes[id]!;
    heads.push(previous ? previous.headOf(id, node) : headOf(node));
    const line = previous?.untouchedBytes(id) ?? Buffer.from(JSON.stringify(node));
    lines.push(line, NEWLINE);
    offset += line.length;
    ends.push(offset);
    offset += 1;
  }
  const headSection = Buffer.from(JSON.stringify(heads));
  const { nodes: _nodes, ...rest } = graph;
  const header = Buffer.from(JSON.stringify({ ...rest, ledger, ids, ends, head_bytes: headSection.length }));
  const prefix = Buffer.from(`${MAGIC}${String(header.length).padStart(12, '0')}\n`);
  return Buffer.concat([prefix, header, NEWLINE, headSection, NEWLINE, ...lines]);
}

const NEWLINE = Buffer.from('\n');

export function readCheckpoint(path: string): Checkpoint {
  const fd = fs.openSync(path, 'r');
  try {
    return decode(fd, path);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function decode(fd: number, path: string): Checkpoint {
  const size = fs.fstatSync(fd).size;
  const prefix = readAt(fd, 0, Math.min(size, PREFIX_BYTES)).toString('latin1');
  if (prefix.length < PREFIX_BYTES || !prefix.startsWith(MAGIC) || !/^\d{12}\n$/.test(prefix.slice(MAGIC.length))) {
    throw invalidFile(path, size === 0 ? 'it is empty' : notACheckpoint(prefix));
  }
  const headerLength = Number(prefix.slice(MAGIC.length, MAGIC.length + 12));
  if (PREFIX_BYTES + headerLength + 1 > size) throw invalidFile(path, 'it is truncated inside its header');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(readAt(fd, PREFIX_BYTES, headerLength).toString('utf8'));
  } catch {
    throw invalidFile(path, 'its header is not JSON');
  }
  const { ids, ends, ledger, head_bytes: headBytes, ...graphFields } = header as Record<string, unknown>;
  assertGraphHeaderShape({ ...graphFields, nodes: {} }, path);
  if (!Number.isInteger(headBytes) || (headBytes as number) < 0) throw invalidFile(path, 'its head section length is malformed');
  const headStart = PREFIX_BYTES + headerLength + 1;
  const sectionStart = headStart + (headBytes as number) + 1;
  const layout = assertLayout(ids, ends, size - sectionStart, path);
  const nodes = new LazyNodes({
    ids: layout.ids,
    ends: layout.ends,
    read: (start, end) => readAt(fd, sectionStart + start, end - start),
    parse: (bytes, id) => parseNode(bytes, id, path),
    heads: () => parseHeads(readAt(fd, headStart, headBytes as number), layout.ids, path),
  });
  const graph = { ...(graphFields as unknown as Omit<Graph, 'nodes'>), nodes: nodes.record() } as Graph;
  let open = true;
  return {
    graph,
    ledger: assertLedgerRef(ledger, path),
    nodes,
    close: () => {
      if (!open) return;
      nodes.detach();
      fs.closeSync(fd);
      open = false;
    },
  };
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

function parseNode(bytes: Buffer, id: NodeId, path: string): GraphNode {
  let node: unknown;
  try {
    node = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidFile(path, `node ${id} is not JSON`);
  }
  assertNodeShape(node, id, path);
  return node;
}

function parseHeads(bytes: Buffer, ids: NodeId[], path: string): NodeHead[] {
  let heads: unknown;
  try {
    heads = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidFile(path, 'its head section is not JSON');
  }
  if (!Array.isArray(heads) || heads.length !== ids.length || !heads.every((head, at) => Array.isArray(head) && head[0] === ids[at])) {
    throw invalidFile(path, 'its head section does not match its nodes');
  }
  return heads as NodeHead[];
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const got = fs.readSync(fd, buffer, read, length - read, position + read);
    if (got === 0) break;
    read += got;
  }
  return buffer.subarray(0, read);
}
