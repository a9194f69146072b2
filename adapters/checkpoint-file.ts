import fs from 'graceful-fs';
import type { Graph, GraphNode, NodeId } from '../domain/model.js';
import { StatusIndex } from '../domain/status-index.js';
import { headRows, headsOf } from './head-rows.js';
import { lazyNodeMap, nodeIds, plainNodes, rawNode, type NodeSpan } from './lazy-nodes.js';
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
const CHECKPOINT_MEMBER = '"checkpoint":';
const NODES_LINE = '"nodes":{\n';
const END = '}}\n';

/** The checkpoint's own member: where its log is, and how its node lines are laid out. */
interface CheckpointMember {
  note: string;
  ledger: LedgerRef;
  /** Node ids in file order, and where each node's JSON ends, counted from the first node line. */
  ids: NodeId[];
  ends: number[];
  /** Each node's StatusIndex head, in the order of `ids` (see head-rows.ts); absent in older files. */
  heads?: unknown;
}

/**
 * The checkpoint file: one JSON document, the state of spec 2.1 with its log kept in the ledger
 * (`log` is empty here) and one member more, `checkpoint`. It is laid out in lines so a reader can
 * take what it needs without parsing the rest: line 1 holds the scalar fields, initiatives, edges
 * and the empty log; line 2 the `checkpoint` member (the ledger position and every node's id and
 * end offset); then `"nodes":{` and one line per node. `jq . tasks.json` reads it whole.
 */
export function encodeCheckpoint(graph: Graph, ledger: LedgerRef): Buffer {
  const ids = nodeIds(graph.nodes);
  const lines: Buffer[] = [];
  const ends: number[] = [];
  let offset = 0;
  ids.forEach((id, position) => {
    const key = Buffer.from(`${JSON.stringify(id)}:`);
    const value = rawNode(graph.nodes, id) ?? Buffer.from(JSON.stringify(graph.nodes[id]));
    const last = position === ids.length - 1;
    lines.push(key, value, last ? NEWLINE : Buffer.from(',\n'));
    offset += key.length + value.length;
    ends.push(offset);
    offset += last ? 1 : 2;
  });
  const { nodes: _nodes, version, fence_generation, revision, initiatives, edges } = graph;
  const head = JSON.stringify({ version, fence_generation, revision, initiatives, edges, log: [] });
  const member: CheckpointMember = { note: noteFor(ledger), ledger, ids, ends, heads: headRows(graph, ids) };
  return Buffer.concat([
    Buffer.from(`${head.slice(0, -1)},\n${CHECKPOINT_MEMBER}${JSON.stringify(member)},\n${NODES_LINE}`),
    ...lines,
    Buffer.from(END),
  ]);
}

function noteFor(ledger: LedgerRef): string {
  return `The graph as of byte ${ledger.bytes} of ${ledger.file}. The log is kept there, one record per committed change set (jq .change.log ${ledger.file}); docs/storage.md.`;
}

/** Reads a checkpoint whole, every node parsed (tools and tests; the store reads nodes lazily). */
export function readCheckpoint(path: string): Checkpoint {
  const checkpoint = decodeCheckpoint(fs.readFileSync(path), path);
  return { ...checkpoint, graph: { ...checkpoint.graph, nodes: plainNodes(checkpoint.graph.nodes) } };
}

/**
 * The graph a checkpoint holds, its nodes parsed as they are read (see lazy-nodes.ts). Everything
 * else (the layout, the header's shape) is checked now: a damaged file fails here, whatever the
 * command reads.
 */
export function decodeCheckpoint(bytes: Buffer, path: string): Checkpoint {
  if (bytes.toString('latin1', 0, MAGIC.length) === MAGIC) return decodeLegacyCheckpoint(bytes, path);
  const size = bytes.length;
  if (size === 0) throw invalidFile(path, 'it is empty');
  const headEnd = bytes.indexOf(0x0a);
  const memberEnd = headEnd < 0 ? -1 : bytes.indexOf(0x0a, headEnd + 1);
  if (memberEnd < 0 || bytes[headEnd - 1] !== 0x2c) throw invalidFile(path, notACheckpoint(bytes.toString('latin1', 0, 64)));
  const head = parseFragment(bytes, 0, headEnd, path, 'its first line');
  const member = parseFragment(bytes, headEnd + 1, memberEnd, path, 'its checkpoint line');
  const { log, ...graphFields } = head as Record<string, unknown>;
  assertGraphHeaderShape({ ...graphFields, nodes: {} }, path);
  if (!Array.isArray(log) || log.length !== 0) throw invalidFile(path, 'its log is not the empty list a checkpoint keeps (the log is in the ledger)');
  const checkpoint = (member as { checkpoint?: Partial<CheckpointMember> }).checkpoint;
  if (typeof checkpoint !== 'object' || checkpoint === null) throw invalidFile(path, 'its second line is not the checkpoint member');
  const sectionStart = memberEnd + 1 + NODES_LINE.length;
  if (bytes.toString('latin1', memberEnd + 1, sectionStart) !== NODES_LINE) throw invalidFile(path, 'its nodes do not start on the third line');
  const layout = assertLayout(checkpoint.ids, checkpoint.ends, size - sectionStart - END.length, path);
  if (bytes.toString('latin1', size - END.length) !== END) throw invalidFile(path, 'it is truncated or has trailing bytes');
  const spans = nodeSpans(bytes, sectionStart, layout, path);
  const graph = { ...(graphFields as unknown as Omit<Graph, 'nodes'>), nodes: lazyNodeMap(bytes, spans, path) };
  const heads = headsOf(checkpoint.heads, layout.ids);
  if (heads) StatusIndex.seed(graph, heads);
  return { graph, ledger: assertLedgerRef(checkpoint.ledger, path) };
}

/** One line of the document (`{...,` or `"member":...,`) parsed as an object of its members. */
function parseFragment(bytes: Buffer, start: number, end: number, path: string, what: string): Record<string, unknown> {
  const text = bytes.toString('utf8', start, end);
  if (!text.endsWith(',')) throw invalidFile(path, `${what} does not end a member`);
  try {
    const value: unknown = JSON.parse(`${text.startsWith('{') ? '' : '{'}${text.slice(0, -1)}}`);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw invalidFile(path, `${what} is not JSON`);
}

/** Where each node's JSON is, checking that every line ends where the layout says. */
function nodeSpans(bytes: Buffer, sectionStart: number, layout: { ids: NodeId[]; ends: number[] }, path: string): Map<NodeId, NodeSpan> {
  const spans = new Map<NodeId, NodeSpan>();
  let lineStart = sectionStart;
  layout.ids.forEach((id, position) => {
    const end = sectionStart + layout.ends[position]!;
    const last = position === layout.ids.length - 1;
    if (last ? bytes[end] !== 0x0a : bytes[end] !== 0x2c || bytes[end + 1] !== 0x0a) throw invalidFile(path, 'its node offsets do not match its node lines');
    spans.set(id, { key: lineStart, start: lineStart + id.length + 3, end });
    lineStart = end + 2;
  });
  return spans;
}

/** Reads the TDCK1 checkpoints written before `tasks.json` was a JSON document again: a header line, then node lines. */
function decodeLegacyCheckpoint(bytes: Buffer, path: string): Checkpoint {
  const size = bytes.length;
  const prefix = bytes.toString('latin1', 0, Math.min(size, PREFIX_BYTES));
  if (prefix.length < PREFIX_BYTES || !/^\d{12}\n$/.test(prefix.slice(MAGIC.length))) throw invalidFile(path, 'it does not start with a checkpoint header');
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

/** What a damaged checkpoint's first lines still tell, if they are intact: for salvage, never for loading. */
export function salvageHeader(bytes: Buffer): { revision?: unknown; fence_generation?: unknown; ledger?: { file?: unknown } } | null {
  try {
    const prefix = bytes.toString('latin1', 0, PREFIX_BYTES);
    if (prefix.startsWith(MAGIC)) {
      const headerLength = Number(prefix.slice(MAGIC.length, MAGIC.length + 12));
      const header: unknown = JSON.parse(bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength));
      return typeof header === 'object' && header !== null ? header : null;
    }
    const headEnd = bytes.indexOf(0x0a);
    const memberEnd = bytes.indexOf(0x0a, headEnd + 1);
    const head = JSON.parse(`${bytes.toString('utf8', 0, headEnd - 1)}}`) as Record<string, unknown>;
    const member = memberEnd < 0 ? null : (JSON.parse(`{${bytes.toString('utf8', headEnd + 1, memberEnd - 1)}}`) as { checkpoint?: { ledger?: { file?: unknown } } });
    return { revision: head.revision, fence_generation: head.fence_generation, ...(member?.checkpoint?.ledger ? { ledger: member.checkpoint.ledger } : {}) };
  } catch {
    return null;
  }
}

/** A document not laid out as a checkpoint is a state from before schema 1 (or a hand edit): say how to import it. */
function notACheckpoint(start: string): string {
  return start.trimStart().startsWith('{')
    ? 'it is a JSON document but not a checkpoint laid out in lines (a project written before schema 1? run taskdag migrate --dry-run)'
    : 'it does not start with a checkpoint';
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
