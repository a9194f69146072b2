import fs from 'graceful-fs';
import { BlockerFinder, type SavedBlockers } from '../domain/blockers.js';
import { EDGE_TYPES, type Edge, type Graph, type GraphNode, type KnowledgeScope, type NodeId } from '../domain/model.js';
import { edgesOf, nodeIds, nodeOf, plainGraph, type Nodes } from '../domain/node-map.js';
import type { NodeListing } from '../domain/node-summary.js';
import type { NodeHead } from '../domain/status-index.js';
import { indexesOf, isProjectState, projectState, type ProjectState, type SavedIndexes } from '../domain/project-state.js';
import { isRememberedRequest, type RememberedRequest } from '../domain/request-window.js';
import { STATUS_RULES_VERSION } from '../domain/status.js';
import { CheckpointEndpoints, endpointSection, reusedEndpointSection, type EndpointReuse, type SavedEndpoints } from './edge-endpoints.js';
import { headColumns, knowledgeSection } from './head-columns.js';
import { crc32 } from './crc32.js';
import { eightHexDigits, ofEightHexDigits } from './hex-digits.js';
import { knowledgeScopesSection } from './knowledge-scopes.js';
import { trigramFilter, trigramRowsSection, type UnchangedLine } from './knowledge-trigrams.js';
import { bucketSections, headsLine, listedBlocked, listedIds, SavedHeadsLine } from './heads-line.js';
import { CheckpointEdges, CheckpointNodes, type ByteSource, type FrozenNodes, type NodeLayout } from './lazy-nodes.js';
import { encodeSlotTable, SLOTS_LINE_OPENING, slotLayoutOf, type SlotLayout } from './node-slots.js';
import { assertGraphHeaderShape } from './state-validation.js';
import { invalidFile } from './storage-error.js';

export interface LedgerRef {
  file: string;
  bytes: number;
}

/** The graph as of a ledger position, as a project state (indexed, its heads seeded from the file). */
/** Where the changes after a checkpoint kept in PostgreSQL are: the change sets made after its revision. */
export interface ChangeSetsRef {
  table: 'taskdag_change_sets';
  revision: number;
}

export interface Checkpoint<Ref = LedgerRef> {
  graph: ProjectState;
  ledger: Ref;
  /** The nodes as read from the file, lazily, with their entries (null for a checkpoint read whole). */
  nodes: CheckpointNodes | null;
}

const NEWLINE = Buffer.from('\n');
const COMMA_NEWLINE = Buffer.from(',\n');
const QUOTE = Buffer.from('"');
const CHECKPOINT_MEMBER = '"checkpoint":';
const IDS_MEMBER = '"ids":';
const HEADS_MEMBER = '"heads":';
const EDGES_MEMBER = '"edges":';
const NODES_LINE = '"nodes":{\n';
const END = '}}\n';

/** The checkpoint's own member: where its log is, and how its node lines are laid out. */
interface CheckpointMember {
  note: string;
  ledger: LedgerRef | ChangeSetsRef;
  /**
   * The byte lengths of the lines after this one (newline included), in file order, so a reader
   * finds each without reading the others: the id list, the slot table (absent when the node
   * section is too long for one), the heads and the edges.
   */
  lines: { ids: number; slots?: number; heads: number; edges: number };
  /** The slot table's layout (node-slots.ts), absent with the table. */
  slot_layout?: SlotLayout;
  /** On a line of its own: node ids in file order, and where each node's JSON ends, counted from the first node line. */
  ids: NodeId[];
  ends: number[];
  /** On a line of its own: the slot table that finds one node's line without the id list (node-slots.ts). */
  slots: string[];
  /** Every node's StatusIndex head, by column in the order of `ids` (head-columns.ts), on a line of its own. */
  heads: unknown;
  /**
   * The STATUS_RULES_VERSION that derived the heads, and the CRC-32 of their line (newline
   * excluded): heads derived by other rules, or edited since, are derived again from the nodes.
   */
  heads_rules: number;
  heads_crc32: string;
  /**
   * Where the heads line's `line_crc32` section is (its bytes from the line's start, and its
   * CRC-32), as the directory says: a command that reads a few nodes checks their lines against it
   * without reading the directory.
   */
  line_crc32?: [number, number, string];
  /**
   * The CRC-32 of line 1 (the graph's fields: revision, fence generation, initiatives), its
   * closing comma and newline excluded, and of the edge list (the bytes between `"edges":[` and
   * `],`): no other checksum covers them, so a byte changed there is damage, not an answer.
   * Absent in a file written before them (read unchecked, as then).
   */
  fields_crc32?: string;
  edges_crc32?: string;
  /**
   * The CRC-32 of this line before it (from `"checkpoint":{` to the comma before its own name), its
   * last member: the ledger position, the lines' lengths and the requests remembered are covered
   * by no other checksum, and a position moved to a later record boundary skipped the commits
   * between (a wrong answer, exit 0). Absent in a file written before it (read unchecked, as then).
   */
  member_crc32?: string;
  /** The requests the graph answered recently (request-window.ts), oldest first; absent when none. */
  requests?: RememberedRequest[];
}

/**
 * The checkpoint file: one JSON document, the state of spec 2.1 with its log kept in the ledger
 * (`log` is empty here) and one member more, `checkpoint`. It is laid out in lines so that a reader
 * parses only what it uses (docs/storage.md):
 *
 *   1 `{` version, fence_generation, revision, initiatives, `"log":[],`
 *   2 `"checkpoint":{` note, ledger position, the lengths of the lines that follow, `,`
 *   3 `"ids":[...],"ends":[...],` node ids in file order and where each node's JSON ends
 *   4 `"slots":[...],` the slot table that finds one node by its id (node-slots.ts)
 *   5 `"heads":[...]},` each node's StatusIndex head (the end of the checkpoint member)
 *   6 `"edges":[...],`
 *   7 `"nodes":{`, then one line per node, then `}}`.
 *
 * `nodes`: the nodes as read from the checkpoint the graph was loaded from, whose entries are
 * copied rather than encoded again (null: every node is encoded).
 */
export function encodeCheckpoint(graph: Graph, ledger: LedgerRef | ChangeSetsRef, nodes: CheckpointNodes | null = null): Buffer {
  return Buffer.concat(encodeCheckpointPieces(graph, ledger, nodes));
}

/**
 * As encodeCheckpoint, the file's pieces in order, to be written one after the other: the lines
 * copied from the checkpoint read are slices of its bytes, written as they are: joining them
 * would copy the whole file once more in memory (BENCHMARKS.md, "The checkpoint rewrite copies
 * what the tail did not change").
 */
export function encodeCheckpointPieces(graph: Graph, ledger: LedgerRef | ChangeSetsRef, nodes: CheckpointNodes | null = null): Buffer[] {
  // Encoded at once, nothing changes the graph meanwhile: nodes not read yet are copied as they were, unparsed.
  const encoding = encodeSlices({ ...copyForCheckpoint(graph, false), record: graph.nodes }, ledger, nodes);
  for (let step = encoding.next(); ; step = encoding.next()) if (step.done) return step.value;
}

/**
 * As encodeCheckpoint, in slices with a turn of the event loop between them, so that a process
 * serving requests (the server) goes on serving while it encodes: the pieces of the file, in order.
 */
export async function encodeCheckpointInSlices(copy: CheckpointCopy, ledger: LedgerRef | ChangeSetsRef, nodes: CheckpointNodes | null): Promise<Buffer[]> {
  const encoding = encodeSlices(copy, ledger, nodes);
  for (let step = encoding.next(); ; step = encoding.next()) {
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A graph as one commit left it, ready to encode: its fields, and its nodes, edges and heads in
 * the order of `ids`. Nodes, edges, initiatives and heads are never changed in place (a change
 * puts a new object), so holding them is a consistent copy, whatever commits follow.
 */
export interface CheckpointCopy {
  fields: Omit<Graph, 'nodes' | 'edges'>;
  /** The ids in order, or null to list them from `frozen` as the encoding begins. */
  ids: NodeId[] | null;
  /** The nodes, or null to take each from `record` (or `frozen`) as it is encoded (`record`: when nothing changes meanwhile). */
  nodes: GraphNode[] | null;
  record?: Nodes;
  /** A lazy map whose bytes stay in memory (a hot store's), as it was when copied. */
  frozen?: FrozenNodes;
  edges: Edge[];
  /** Instead of `edges`, when the checkpoint's edges were never read: their bytes, copied, and the edges appended since. */
  unreadEdges?: { bytes: Buffer; crc: number | null; appended: readonly Edge[] } | null;
  /** The endpoints of the checkpoint read, to copy those of nodes whose edges did not change (a rewrite of a lazily read graph). */
  endpointReuse?: SavedEndpointsToCopy | null;
  /** The heads in the order of `ids` (in any order with `frozen`: each names its node). */
  heads: NodeHead[];
  /** The status buckets (`<type> <status>`, heads oldest first) and the claimed tasks in progress, longest-held first. */
  groups: [string, NodeHead[]][];
  claimed: NodeHead[];
  /** What the first blocked tasks `status` lists wait on (`listedBlocked`), worked out as the copy is taken. */
  blocked: ReadonlyMap<NodeId, SavedBlockers>;
  requests: RememberedRequest[];
}

/**
 * `withNodes`: hold every node now (what an encoding in slices needs; it reads any node not read
 * yet). A lazy map whose bytes stay in memory (a hot store's) is held frozen, and the heads as a
 * list: no node or head is read or looked up (at 50k nodes, reading each node and head by id held
 * the event loop 17-24 ms); the encoding lists the ids and orders the heads on turns of their own.
 */
export function copyForCheckpoint(graph: Graph, withNodes = true): CheckpointCopy {
  // Every field of the graph but its nodes and edges goes on line 1, so a field added to the graph is kept.
  const { nodes: _nodes, edges: _edges, ...fields } = graph;
  const statuses = indexesOf(graph).statuses;
  const heads = statuses.all();
  // Edges never read are copied as they were, their bytes taken now: a server's copy (of a lazy
  // map) too, where parsing 50k nodes' edges held the event loop for about 40 ms a checkpoint.
  const unreadEdges = (!withNodes || graph.nodes instanceof CheckpointNodes) && graph.edges instanceof CheckpointEdges ? graph.edges.unread() : null;
  const edges = unreadEdges ? [] : edgesOf(graph);
  // The non-empty buckets by name: how the heads came to be grouped (read from a checkpoint and
  // moved by a ledger tail, or derived from the nodes) leaves no trace in the file.
  const groups = statuses
    .groups()
    .filter(([, heads]) => heads.length > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Taken before the blockers below are worked out: a damaged entry they read makes the edge index
  // group the whole edge list, and the entries saved are still copied as they were.
  const endpointReuse = reusableEndpoints(graph);
  const held = {
    fields: { ...fields, initiatives: { ...fields.initiatives } },
    // A graph shaped wrong (a tool writing a damaged file on purpose) is encoded as it is.
    edges: Array.isArray(edges) ? [...edges] : edges,
    unreadEdges,
    groups,
    claimed: [...statuses.claimed().inOrder()],
    blocked: savedBlockersOf(graph, listedBlocked(groups)),
    // Remembered requests are never changed in place either: the list is the copy.
    requests: isProjectState(graph) ? graph.requests.entries() : [],
  };
  // A server's copy (frozen) copies the saved endpoints too: encoded afresh, they cost 100+ ms of CPU a checkpoint at 50k nodes.
  if (withNodes && graph.nodes instanceof CheckpointNodes) return { ...held, ids: null, nodes: null, frozen: graph.nodes.frozen(), endpointReuse, heads: [...heads.values()] };
  const ids = nodeIds(graph);
  return { ...held, ids, nodes: withNodes ? ids.map((id) => nodeOf(graph, id)!) : null, endpointReuse: withNodes ? null : endpointReuse, heads: ids.map((id) => heads.get(id)!) };
}

/**
 * What each of `blocked` waits on, read from the graph now (commits that follow the copy change
 * the graph, not what was saved with it): a few hundred nodes read, whatever the graph's size. A
 * task whose blockers cannot be read (a node damaged in the file the graph was read from) gets
 * none: `status` walks them, and reports the damage, as before.
 */
function savedBlockersOf(graph: Graph, blocked: readonly NodeHead[]): Map<NodeId, SavedBlockers> {
  const finder = new BlockerFinder({ graph, index: indexesOf(graph).edges });
  const saved = new Map<NodeId, SavedBlockers>();
  for (const head of blocked) {
    try {
      const blockers = finder.saved(head.id, head.type);
      if (blockers) saved.set(head.id, blockers);
    } catch {
      continue;
    }
  }
  return saved;
}

/** How many nodes or edges are encoded between two yields: a few milliseconds of work. */
const SLICE = 2_000;

/** Encodes `copy`, yielding after every slice; returns the file's pieces. */
function* encodeSlices(copy: CheckpointCopy, ledger: LedgerRef | ChangeSetsRef, loadedNodes: CheckpointNodes | null): Generator<void, Buffer[]> {
  const { ids, heads, record, nodes } = copy.frozen ? yield* thawed(copy.frozen, copy.heads) : { ids: copy.ids!, heads: copy.heads, record: copy.record, nodes: loadedNodes };
  const lines: Buffer[] = [];
  const ends: number[] = [];
  // What status lists of the first heads of each bucket, saved with them (a few hundred nodes read, whatever the graph's size).
  const listed = listedIds(copy.groups);
  const listings = new Map<NodeId, NodeListing>();
  const crcs: number[] = [];
  // Each knowledge line's trigram filter, in the knowledge section's order (the heads of the ids' order that have a scope).
  const trigrams: (Uint8Array | UnchangedLine)[] = [];
  let offset = 0;
  // The lines of nodes never read are copied from the node section as it was, read once, a run of
  // consecutive lines (the `,\n` between them included) at a time: `run` is where the current run
  // starts and ends in the old section; its last line's separator is written after it.
  const copied = record === nodes ? nodes : null;
  let run: { start: number; end: number } | null = null;
  const endRun = () => {
    if (run) lines.push(copied!.sectionBytes().subarray(run.start, run.end), COMMA_NEWLINE);
    run = null;
  };
  // The `line_crc32` section likewise: the saved digits of a run of copied lines copied at once
  // (from `digitsRun` to the line before the current one), the others written.
  const savedDigits = copied?.savedLineChecksums() ?? null;
  const digits: Buffer[] = [QUOTE];
  let digitsRun = -1;
  const endDigitsRun = (end: number) => {
    if (digitsRun >= 0) digits.push(savedDigits!.subarray(1 + 8 * digitsRun, 1 + 8 * end));
    digitsRun = -1;
  };
  for (let position = 0; position < ids.length; position++) {
    if (position > 0 && position % SLICE === 0) yield;
    const id = ids[position]!;
    // A node of the lazy map itself is left to it (one never read is copied unparsed); any other map's is read.
    const node = copy.nodes ? copy.nodes[position]! : record === nodes ? undefined : nodeOf({ nodes: record! }, id)!;
    if (listed.has(id)) noteListing(listings, id, () => node ?? nodeOf({ nodes: record! }, id));
    const last = position === ids.length - 1;
    const unread = copied?.unreadLineAt(id, position);
    let entry: Buffer;
    let crc: number;
    const knowledge = heads[position]!.scope !== null;
    if (unread && savedDigits) {
      if (digitsRun < 0) digitsRun = position;
      // Only the knowledge lines' checksums are read again (their scopes' buckets hold them).
      crc = knowledge ? parseInt(savedDigits.toString('latin1', 1 + 8 * position, 9 + 8 * position), 16) : NaN;
    } else {
      endDigitsRun(position);
      crc = unread ? copied!.unreadLineChecksum(position, unread) : NaN;
    }
    if (unread) {
      entry = copied!.sectionBytes().subarray(unread.start, unread.end);
      // A run goes on across the `,\n` between two consecutive lines of the old section, when that
      // is what it holds: no checksum covers it, so one damaged there is written afresh, as the
      // whole encoding writes it, not carried into the new file.
      if (run?.end !== undefined && run.end + 2 === unread.start && separated(copied!.sectionBytes(), run.end)) run.end = unread.end;
      else {
        endRun();
        run = { start: unread.start, end: unread.end };
      }
      if (last) {
        lines.push(copied!.sectionBytes().subarray(run.start, run.end), NEWLINE);
        run = null;
      }
    } else {
      endRun();
      ({ bytes: entry, crc } = nodes ? nodes.entry(id, node) : encodedEntry(id, node!));
      lines.push(entry, last ? NEWLINE : COMMA_NEWLINE);
    }
    if (digitsRun < 0) digits.push(Buffer.from(eightHexDigits(crc), 'latin1'));
    crcs.push(crc);
    // A line copied as it was has the filter the checkpoint read saved for it (it is at the same place among the knowledge lines: no line before it was removed).
    if (knowledge) trigrams.push(unread ? { filter: () => trigramFilter(entry) } : trigramFilter(entry));
    offset += entry.length;
    ends.push(offset);
    offset += last ? 1 : 2;
  }
  endRun();
  endDigitsRun(ids.length);
  digits.push(QUOTE);
  yield;
  const idsText = `${IDS_MEMBER}${JSON.stringify(ids)}`;
  yield;
  const idsLine = Buffer.from(`${idsText},"ends":${JSON.stringify(ends)},\n`);
  const slots = yield* encodeSlotTable(ids, ends, offset, SLICE * 5);
  const head = JSON.stringify({ ...copy.fields, log: [] });
  const { line: headsLine, crc: headsCrc, bounds: headsBounds } = yield* headsLineOf(copy, ids, heads, ends, crcs, Buffer.concat(digits), trigrams, (id) => listings.get(id) ?? null, nodes);
  const lineCrcs = headsBounds.get('line_crc32')!;
  const edgeSlices: string[] = [];
  for (let at = 0; Array.isArray(copy.edges) && at < copy.edges.length; at += SLICE * 5) {
    edgeSlices.push(JSON.stringify(copy.edges.slice(at, at + SLICE * 5)).slice(1, -1));
    yield;
  }
  const { line: edgesLine, crc: edgesCrc } = copy.unreadEdges
    ? copiedEdgesLine(copy.unreadEdges)
    : yield* checksummedEdgesLine(Buffer.from(`${EDGES_MEMBER}${Array.isArray(copy.edges) ? `[${edgeSlices.join(',')}]` : JSON.stringify(copy.edges)},\n`));
  const lineBytes = { ids: idsLine.length, ...(slots ? { slots: slots.line.length } : {}), heads: headsLine.length, edges: edgesLine.length };
  const requests = copy.requests.length > 0 ? { requests: copy.requests } : {};
  const slotLayout = slots ? { slot_layout: slots.layout } : {};
  const member = { note: noteFor(ledger), ledger, lines: lineBytes, heads_rules: STATUS_RULES_VERSION, heads_crc32: headsCrc, line_crc32: [lineCrcs.start, lineCrcs.end, lineCrcs.crc], ...requests, ...slotLayout, fields_crc32: eightHexDigits(crc32(Buffer.from(head.slice(0, -1)))), edges_crc32: edgesCrc };
  yield;
  const top = `${head.slice(0, -1)},\n${memberLine(member)}\n`;
  return [Buffer.from(top), idsLine, ...(slots ? [slots.line] : []), headsLine, edgesLine, Buffer.from(NODES_LINE), ...lines, Buffer.from(END)];
}

/** The name of line 2's last member, its own CRC-32 (`member_crc32`), as it follows the rest of the line. */
const MEMBER_CRC = ',"member_crc32":"';

/**
 * Line 2 of a checkpoint, without its newline: the checkpoint member's fields (`member`, as it
 * reads them; any `member_crc32` it holds is left out), then `member_crc32`, the CRC-32 of the line
 * before it, then the comma the following lines' members need. Exported for tests that edit line 2
 * as a release that writes it would.
 */
export function memberLine(member: Readonly<Record<string, unknown>>): string {
  const { member_crc32: _written, ...fields } = member;
  const before = `${CHECKPOINT_MEMBER}${JSON.stringify(fields).slice(0, -1)}`;
  return `${before}${MEMBER_CRC}${eightHexDigits(crc32(Buffer.from(before)))}",`;
}

/**
 * Whether line 2 (`line`, its comma and newline excluded) is as written: when it saves
 * `member_crc32`, the line ends with that member and its checksum is the line's before it.
 */
function memberLineHolds(line: Buffer, saved: unknown): boolean {
  if (saved === undefined) return true;
  const at = line.length - MEMBER_CRC.length - 9;
  return typeof saved === 'string' && at > 0 && line.toString('latin1', at, at + MEMBER_CRC.length) === MEMBER_CRC && line[line.length - 1] === 0x22 && eightHexDigits(crc32(line.subarray(0, at))) === saved;
}

/** Whether `section` holds the `,\n` that separates two node lines at `at`. */
function separated(section: Buffer, at: number): boolean {
  return section[at] === 0x2c && section[at + 1] === 0x0a;
}

function encodedEntry(id: NodeId, node: GraphNode): { bytes: Buffer; crc: number } {
  const bytes = Buffer.from(`${JSON.stringify(id)}:${JSON.stringify(node)}`);
  return { bytes, crc: crc32(bytes) };
}

/**
 * The heads line (heads-line.ts): every head by column, the knowledge heads apart, the edges by
 * endpoint, the `line_crc32` section (`lineCrcs`, as written), the trigram filter of each
 * knowledge line (`trigrams`, in the knowledge section's order), and the knowledge by scope value,
 * with each knowledge line's checksum (`crcs`, in the order of `ids`: NaN for the other lines a
 * rewrite copies, whose saved digits it copies without parsing them).
 */
function* headsLineOf(copy: CheckpointCopy, ids: NodeId[], heads: NodeHead[], ends: readonly number[], crcs: readonly number[], lineCrcs: Buffer, trigrams: readonly (Uint8Array | UnchangedLine)[], listingOf: (id: NodeId) => NodeListing | null, read: CheckpointNodes | null): ReturnType<typeof headsLine> {
  // As JSON.stringify(columns), a member at a time.
  const columns = Object.entries(yield* headColumns(heads, SLICE * 5));
  const members: string[] = [];
  for (const [name, value] of columns) {
    members.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
    yield;
  }
  const knowledge = knowledgeSection(heads, ends);
  yield;
  const reuse = copy.endpointReuse ? reuseOf(copy.endpointReuse, ids) : null;
  const endpoints = reuse ? yield* reusedEndpointSection(ids, reuse, SLICE) : yield* endpointSection(ids, edgesToIndex(copy), SLICE);
  yield;
  const buckets = bucketSections(copy.groups, heads, copy.claimed, listingOf, (id) => copy.blocked.get(id) ?? null) ?? [];
  yield;
  return yield* headsLine([['columns', Buffer.from(`{${members.join(',')}}`)], ['knowledge', knowledge], ['endpoints', endpoints ?? Buffer.from('null')], ['line_crc32', lineCrcs], ['knowledge_trigram_rows', trigramRowsSection(trigrams, knowledge, read?.savedSection('knowledge_trigram_rows') ?? null)], ['knowledge_scopes', knowledgeScopesSection(heads, ends, crcs)], ...buckets]);
}

/**
 * Notes the listing of node `id` (`read` gives the node). A node that cannot be read (damaged in
 * the file the graph was read from) gets none: its bytes are copied as they are, and reading it
 * when it is listed reports the damage, as before.
 */
function noteListing(listings: Map<NodeId, NodeListing>, id: NodeId, read: () => GraphNode | undefined): void {
  let node: GraphNode | undefined;
  try {
    node = read();
  } catch {
    return;
  }
  if (node) listings.set(id, { title: node.title, tags: node.tags, revision: node.revision });
}

/**
 * The endpoints section of the checkpoint a graph was read from, and the edges of every node
 * whose edges changed since, as they were when copied: its bytes are read only as the encoding
 * begins (they never change; taking the copy reads nothing).
 */
interface SavedEndpointsToCopy {
  entries(): { count: number; bytes: Buffer; offsets: ArrayLike<number> } | null;
  fileIds(): readonly NodeId[];
  changed: ReadonlyMap<NodeId, { into: readonly Edge[]; outOf: readonly Edge[] }>;
}

/** What a rewrite of the checkpoint `graph` was read from can copy of its endpoints; null when the graph reads no saved endpoints. */
function reusableEndpoints(graph: Graph): SavedEndpointsToCopy | null {
  const index = indexesOf(graph).edges;
  const saved = index.savedChanges();
  const nodes = graph.nodes;
  if (!saved || !(saved.saved instanceof CheckpointEndpoints) || !(nodes instanceof CheckpointNodes)) return null;
  const endpoints = saved.saved;
  const changed = new Map<NodeId, { into: Edge[]; outOf: Edge[] }>();
  for (const id of saved.changed) changed.set(id, { into: EDGE_TYPES.flatMap((type) => index.into(id, type)), outOf: EDGE_TYPES.flatMap((type) => index.outOf(id, type)) });
  return { entries: () => endpoints.entries(), fileIds: () => nodes.fileIds(), changed };
}

/**
 * Every entry of `saved` of a node still at its position whose edges did not change, for a
 * rewrite over `ids`: when `ids` lists the file's ids first, in order (no node was removed).
 */
function reuseOf(saved: SavedEndpointsToCopy, ids: readonly NodeId[]): EndpointReuse | null {
  const fileIds = saved.fileIds();
  if (ids.length < fileIds.length) return null;
  for (let position = 0; position < fileIds.length; position++) if (ids[position] !== fileIds[position]) return null;
  const entries = saved.entries();
  return entries && entries.count === fileIds.length ? { ...entries, changed: saved.changed } : null;
}

/**
 * The edges the endpoints are saved for: those never read are parsed here (a list that is not
 * JSON, or not the bytes its checksum was saved for, gets no endpoints: a reader then reads the
 * list and finds it damaged).
 */
function edgesToIndex(copy: CheckpointCopy): readonly unknown[] {
  if (!copy.unreadEdges) return Array.isArray(copy.edges) ? copy.edges : [null];
  const { bytes, crc } = copy.unreadEdges;
  if (crc !== null && crc32(bytes) !== crc) return [null];
  try {
    const read = JSON.parse(`[${copy.unreadEdges.bytes.toString('utf8')}]`) as unknown[];
    return [...read, ...copy.unreadEdges.appended];
  } catch {
    return [null];
  }
}

/**
 * A frozen map made a map again, and its heads put in the order of its ids, a slice at a time
 * (commits go on between them and change none of it): its entries are the bytes of the nodes it
 * never read.
 */
function* thawed(frozen: FrozenNodes, anyOrder: NodeHead[]): Generator<void, { ids: NodeId[]; heads: NodeHead[]; record: CheckpointNodes; nodes: CheckpointNodes }> {
  const values = new Map<NodeId, GraphNode>();
  for (let at = 0; at < frozen.values.length; at++) {
    if (at % SLICE === 0) yield;
    values.set(frozen.values[at]![0], frozen.values[at]![1]);
  }
  const nodes = frozen.thaw(values, new Set(frozen.removed));
  yield;
  const ids = nodes.ids();
  const byId = new Map<NodeId, NodeHead>();
  for (let at = 0; at < anyOrder.length; at++) {
    if (at % SLICE === 0) yield;
    byId.set(anyOrder[at]!.id, anyOrder[at]!);
  }
  yield;
  return { ids, heads: ids.map((id) => byId.get(id)!), record: nodes, nodes };
}

/**
 * The edges line from the bytes of edges never read, and the edges appended since, with its
 * CRC-32 (`edges_crc32`): the one the file saved for the bytes copied, continued over those
 * appended, so that bytes damaged since they were written stay damage; computed over the bytes
 * only for a file that saved none.
 */
function copiedEdgesLine({ bytes, appended, crc }: { bytes: Buffer; appended: readonly Edge[]; crc: number | null }): { line: Buffer; crc: string } {
  const added = Buffer.from(appended.length === 0 ? '' : `${bytes.length > 0 ? ',' : ''}${JSON.stringify(appended).slice(1, -1)}`);
  return { line: Buffer.concat([Buffer.from(`${EDGES_MEMBER}[`), bytes, added, Buffer.from('],\n')]), crc: eightHexDigits(crc32(added, crc ?? crc32(bytes))) };
}

/** How many bytes of the edge list are checksummed between two yields (about a millisecond's work). */
const EDGE_CRC_SLICE = 1 << 20;

/** An edges line encoded afresh, with the CRC-32 of its list (`edges_crc32`), taken a slice at a time. */
function* checksummedEdgesLine(line: Buffer): Generator<void, { line: Buffer; crc: string }> {
  const list = line.subarray(EDGES_MEMBER.length + 1, line.length - 3);
  let crc = 0;
  for (let at = 0; at < list.length; at += EDGE_CRC_SLICE) {
    crc = crc32(list.subarray(at, at + EDGE_CRC_SLICE), crc);
    yield;
  }
  return { line, crc: eightHexDigits(crc) };
}

function noteFor(ledger: LedgerRef | ChangeSetsRef): string {
  if ('table' in ledger) return `The graph as of revision ${ledger.revision}. The log is kept in ${ledger.table}, one row per committed change set; docs/scaling.md.`;
  return `The graph as of byte ${ledger.bytes} of ${ledger.file}. The log is kept there, one record per committed change set (jq .change.log ${ledger.file}); docs/storage.md.`;
}

/** Makes a lazily read checkpoint's graph plain data: every node parsed, the edges too. */
export function readWhole(checkpoint: Checkpoint<unknown>): void {
  const { graph } = checkpoint;
  const plain = plainGraph(graph);
  graph.nodes = plain.nodes;
  graph.edges = plain.edges;
  // Every edge is in memory now: grouped once from the list rather than read node by node.
  indexesOf(graph).edges.invalidate();
}

/** Reads a checkpoint whole, every node parsed (tools and tests; the store reads nodes lazily). */
export function readCheckpoint(path: string): Checkpoint {
  const checkpoint = decodeCheckpoint(bufferSource(fs.readFileSync(path)), path);
  readWhole(checkpoint);
  return checkpoint;
}

/** Bytes in memory as a source to decode from. */
export function bufferSource(buffer: Buffer): ByteSource {
  return { size: buffer.length, bytes: (start, end) => buffer.subarray(start, end) };
}

/**
 * The graph a checkpoint holds, read from `source` as it is used: the first two lines now, with
 * every check that needs no more than a few bytes (the lines are where line 2 says, the document
 * closes where the slot table or the node offsets say, so a file cut short fails here whatever
 * the command reads); the id list, the edges line, and the heads line when first used (the heads
 * if the rules that derived them are this release's and the line is as written); each node when
 * it is first read (lazy-nodes.ts), found by the slot table, its line's bounds checked then. The
 * nodes keep `source` until they are closed.
 */
export function decodeCheckpoint(source: ByteSource, path: string): Checkpoint;
export function decodeCheckpoint<Ref>(source: ByteSource, path: string, readRef: (value: unknown, path: string) => Ref): Checkpoint<Ref>;
export function decodeCheckpoint(source: ByteSource, path: string, readRef: (value: unknown, path: string) => unknown = assertLedgerRef): Checkpoint<unknown> {
  const size = source.size;
  if (size === 0) throw invalidFile(path, 'it is empty');
  const top = firstLines(source, 2);
  const [headEnd, memberEnd] = lineBreaks(top, 2);
  if (memberEnd === undefined || top[headEnd! - 1] !== 0x2c) throw invalidFile(path, notACheckpoint(top.toString('latin1', 0, 64)));
  const { log, ...graphFields } = parseLine(top, 0, headEnd!, '{', '}', path, 'its first line');
  assertGraphHeaderShape({ ...graphFields, edges: [], nodes: {} }, path);
  if (!Array.isArray(log) || log.length !== 0) throw invalidFile(path, 'its log is not the empty list a checkpoint keeps (the log is in the ledger)');
  const checkpoint = parseLine(top, headEnd! + 1, memberEnd, '{', '}}', path, 'its checkpoint line').checkpoint as Partial<CheckpointMember> | undefined;
  if (typeof checkpoint !== 'object' || checkpoint === null) throw invalidFile(path, 'its second line is not the checkpoint member');
  if (!memberLineHolds(top.subarray(headEnd! + 1, memberEnd - 1), checkpoint.member_crc32)) throw invalidFile(path, 'its second line is not as written (its CRC-32 differs)');
  if (checkpoint.fields_crc32 !== undefined && checkpoint.fields_crc32 !== eightHexDigits(crc32(top.subarray(0, headEnd! - 1)))) throw invalidFile(path, 'its first line is not as written (its CRC-32 differs)');
  // A file of release 0.1.0 (or of main before the slot table) lists its ids on line 2 itself.
  const idsInline = 'ids' in checkpoint;
  const { ids: idsLine, slots: slotsLine, heads, edges } = linesAfter(memberEnd + 1, checkpoint.lines, idsInline, path);
  const sectionStart = edges.end + 1 + NODES_LINE.length;
  const sectionEnd = size - END.length;
  if (idsLine) expectBytes(source, idsLine.start, `${IDS_MEMBER}[`, path, 'its id list is missing');
  if (idsLine) expectBytes(source, idsLine.end - 2, '],\n', path, 'its id list is cut');
  expectBytes(source, heads.start, HEADS_MEMBER, path, 'its heads line is missing');
  expectBytes(source, heads.end - 2, '},\n', path, 'its heads line is cut');
  expectBytes(source, edges.start, `${EDGES_MEMBER}[`, path, 'its edges line is missing');
  expectBytes(source, edges.end - 2, '],\n', path, 'its edges line is cut');
  expectBytes(source, edges.end + 1, NODES_LINE, path, 'its nodes do not start after its edges line');
  expectBytes(source, sectionEnd, END, path, 'it is truncated or has trailing bytes');
  const layout = nodeLayout(source, checkpoint, { idsLine, slotsLine, sectionStart, sectionEnd }, path);
  const ledger = readRef(checkpoint.ledger, path);
  const nodes = new CheckpointNodes(source, layout, path, checkpointIdentity(ledger, checkpoint.heads_crc32));
  const edgesCrc = checkpoint.edges_crc32 === undefined ? null : typeof checkpoint.edges_crc32 === 'string' ? ofEightHexDigits(checkpoint.edges_crc32) : null;
  if (checkpoint.edges_crc32 !== undefined && edgesCrc === null) throw invalidFile(path, 'its edges checksum is malformed');
  const edgeList = new CheckpointEdges(
    () => {
      const line = nodes.bytes(edges.start, edges.end, 'the edges');
      if (edgesCrc !== null && crc32(line.subarray(EDGES_MEMBER.length + 1, line.length - 2)) !== edgesCrc) throw invalidFile(path, 'its edges line is not as written (its CRC-32 differs)');
      const edgeLine = parseLine(line, 0, edges.end - edges.start, '{', '}', path, 'its edges line').edges;
      assertGraphHeaderShape({ ...graphFields, edges: edgeLine, nodes: {} }, path);
      return edgeLine as Edge[];
    },
    () => nodes.bytes(edges.start + EDGES_MEMBER.length + 1, edges.end - 2, 'the edges'),
    edgesCrc,
  );
  const graph = { ...(graphFields as unknown as Omit<Graph, 'nodes' | 'edges'>), edges: edgeList, nodes };
  return { graph: projectState(graph, savedIndexes(checkpoint, nodes, heads), assertRequests(checkpoint.requests, path)), ledger, nodes };
}

/**
 * The indexes the heads line saved (heads-line.ts), read when first used: the heads when the rules
 * that derived them are this release's and the line saves the checksum of each node line (every
 * node read is then checked against it, so the heads are never used beside a line edited since),
 * the edges by endpoint whatever the rules. What does not check is derived again from the nodes
 * and the edge list.
 */
function savedIndexes(checkpoint: Partial<CheckpointMember>, nodes: CheckpointNodes, heads: { start: number; end: number }): SavedIndexes | null {
  if (typeof checkpoint.heads_crc32 !== 'string') return null;
  const read = (start: number, end: number) => nodes.bytes(heads.start + start, heads.start + end, 'the heads');
  const line = new SavedHeadsLine(read, heads.end - heads.start, checkpoint.heads_crc32, () => nodes.fileIds(), () => nodes.fileCount(), checkpoint.line_crc32);
  // Knowledge items are read where their section entry says their line is (checked against the line's key, end and checksum).
  nodes.hintLines((id) => line.knowledgeLine(id));
  nodes.checkLines(() => line.lineChecksums());
  // Derived by these rules, beside line checksums (as the heads are used): a rewrite copies what of them the tail did not change.
  if (checkpoint.heads_rules === STATUS_RULES_VERSION) nodes.keepSections((name) => (line.lineChecksums() ? line.sectionBytes(name) : null));
  const checked = <A extends unknown[], T>(use: (...args: A) => T | null) => (...args: A) => (line.lineChecksums() ? use(...args) : null);
  const positionOf = (known: NodeId) => nodes.filePosition(known);
  // One reader of the endpoints for the edge index and the saved buckets' check: each entry is read once.
  let endpoints: SavedEndpoints | null | undefined;
  const savedEndpoints = () => (endpoints === undefined ? (endpoints = line.endpoints(positionOf)) : endpoints);
  return {
    heads:
      checkpoint.heads_rules === STATUS_RULES_VERSION
        ? {
            all: checked(() => line.all()),
            knowledge: checked(() => line.knowledge()),
            knowledgeHolding: checked((values: readonly string[]) => line.knowledgeHolding(values)),
            knowledgeNaming: checked((target: KnowledgeScope) => line.knowledgeNaming(target)),
            knowledgeMayHold: checked((pieces: readonly string[]) => line.knowledgeMayHold(pieces)),
            buckets: checked(() => line.buckets(positionOf, savedEndpoints)),
          }
        : null,
    edges: new CheckpointEndpoints(savedEndpoints),
  };
}

/**
 * How much of a checkpoint's start a load reads first: its first two lines (the graph's header and
 * the checkpoint member) take about 3 KB whatever the graph's size, unless it has many initiatives
 * or remembers many requests. A read of 64 KB cost every command a buffer of that size and, for
 * `checkpointPosition`, a string of it.
 */
const FIRST_LINES_READ = 4 * 1024;

/** The file's start, read in growing chunks until it holds `count` whole lines (or the file ends). */
function firstLines(source: ByteSource, count: number): Buffer {
  for (let length = FIRST_LINES_READ; ; length *= 4) {
    const bytes = source.bytes(0, Math.min(length, source.size));
    if (lineBreaks(bytes, count).length === count || bytes.length >= source.size) return bytes;
  }
}

function expectBytes(source: ByteSource, start: number, expected: string, path: string, problem: string): void {
  if (start < 0 || source.bytes(start, start + expected.length).toString('latin1') !== expected) throw invalidFile(path, problem);
}

/** The positions of the first `count` newlines (fewer when the file has fewer). */
function lineBreaks(bytes: Buffer, count: number): number[] {
  const found: number[] = [];
  for (let at = bytes.indexOf(0x0a); at >= 0 && found.length < count; at = bytes.indexOf(0x0a, at + 1)) found.push(at);
  return found;
}

/**
 * One line of the document, without its closing comma, made an object by `before` and `after`
 * (the line's own braces are those a neighbouring line opens or closes).
 */
function parseLine(bytes: Buffer, start: number, end: number, before: string, after: string, path: string, what: string): Record<string, unknown> {
  const text = bytes.toString('utf8', start, end - 1);
  try {
    const value: unknown = JSON.parse(`${text.startsWith('{') ? '' : before}${text}${after}`);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw invalidFile(path, `${what} is not JSON`);
}

/** A line of the file: where it starts, and where its newline is. */
interface LineBounds {
  start: number;
  end: number;
}

/**
 * Where the lines after line 2 are, from the lengths it gives: the id list and slot table (null
 * in a file whose line 2 lists its ids), the heads and the edges.
 */
function linesAfter(start: number, value: unknown, idsInline: boolean, path: string): { ids: LineBounds | null; slots: LineBounds | null; heads: LineBounds; edges: LineBounds } {
  const lines = value as Partial<CheckpointMember['lines']> | undefined;
  const names = idsInline ? (['heads', 'edges'] as const) : lines?.slots === undefined ? (['ids', 'heads', 'edges'] as const) : (['ids', 'slots', 'heads', 'edges'] as const);
  const found: Record<string, LineBounds> = {};
  let at = start;
  for (const name of names) {
    const length = lines?.[name];
    if (!Number.isSafeInteger(length) || length! < 3) throw invalidFile(path, 'its line lengths are malformed');
    found[name] = { start: at, end: at + length! - 1 };
    at += length!;
  }
  return { ids: found.ids ?? null, slots: found.slots ?? null, heads: found.heads!, edges: found.edges! };
}

/**
 * Where the nodes are (lazy-nodes.ts). The id list is parsed now from a file whose line 2 holds
 * it, or when the slot table does not match the node section (so a file cut or edited out of
 * shape fails here, whatever the command reads); else only when first used.
 */
function nodeLayout(source: ByteSource, member: Partial<CheckpointMember>, at: { idsLine: LineBounds | null; slotsLine: LineBounds | null; sectionStart: number; sectionEnd: number }, path: string): NodeLayout {
  const { idsLine, slotsLine, sectionStart, sectionEnd } = at;
  const sectionBytes = sectionEnd - sectionStart;
  const parseList = (read: (start: number, end: number) => Buffer) => {
    if (!idsLine) return assertLayout(member.ids, member.ends, sectionBytes, path);
    const parsed = parseLine(read(idsLine.start, idsLine.end), 0, idsLine.end - idsLine.start, '{', '}', path, 'its id list');
    return assertLayout(parsed.ids, parsed.ends, sectionBytes, path);
  };
  // The table is derived data: one that does not match the file is not used (the list answers), as heads are derived again.
  const slotLayout = slotsLine && slotsLineHolds(source, slotsLine) ? slotLayoutOf(member.slot_layout, slotsLine.end + 1 - slotsLine.start, sectionBytes) : null;
  if (slotLayout) return { sectionStart, sectionEnd, slots: { lineStart: slotsLine!.start, layout: slotLayout }, list: parseList };
  const list = parseList((start, end) => source.bytes(start, end));
  return { sectionStart, sectionEnd, slots: null, list: () => list };
}

function slotsLineHolds(source: ByteSource, line: LineBounds): boolean {
  const opens = source.bytes(line.start, line.start + SLOTS_LINE_OPENING.length).toString('latin1') === SLOTS_LINE_OPENING;
  return opens && source.bytes(line.end - 2, line.end + 1).toString('latin1') === '],\n';
}

/**
 * What names one checkpoint file to the positions a ledger record keeps (lazy-nodes.ts,
 * `notePositions`): the byte of its ledger it is taken at and its heads line's checksum, which
 * covers every section laid out by node position (a file rewritten at the same position with its
 * nodes in another order has other sections). The ledger file goes without saying: a record is
 * replayed only over a checkpoint of its own ledger. Null for a file without a heads checksum or a
 * ledger position.
 */
function checkpointIdentity(ledger: unknown, headsCrc: unknown): string | null {
  const bytes = (ledger as Partial<LedgerRef> | null)?.bytes;
  return typeof headsCrc === 'string' && typeof bytes === 'number' ? `${bytes}#${headsCrc}` : null;
}

/** The ledger position a checkpoint is taken at, read from its first two lines only; null when they do not say. */
export function checkpointPosition(source: ByteSource): LedgerRef | null {
  // The member starts with its note and its ledger (encodeSlices): a few hundred bytes into line 2.
  for (const length of [FIRST_LINES_READ, 64 * 1024]) {
    const bytes = source.bytes(0, Math.min(source.size, length));
    const start = bytes.toString('utf8');
    const line2 = start.indexOf(`\n${CHECKPOINT_MEMBER}`);
    // A read cut short cuts the match too: the ledger's closing brace is part of it.
    const match = line2 < 0 ? null : /^\{"note":"(?:[^"\\]|\\.)*","ledger":\{"file":("(?:[^"\\]|\\.)*"),"bytes":(\d+)\}/.exec(start.slice(line2 + 1 + CHECKPOINT_MEMBER.length));
    if (match) return { file: JSON.parse(match[1]!) as string, bytes: Number(match[2]) };
    if (bytes.length >= source.size) break;
  }
  return null;
}

/** What a damaged checkpoint's first lines still tell, if they are intact: for salvage, never for loading. */
export function salvageHeader(bytes: Buffer): { revision?: unknown; fence_generation?: unknown; ledger?: { file?: unknown; bytes?: unknown } } | null {
  try {
    const [headEnd, memberEnd] = lineBreaks(bytes, 2);
    const head = JSON.parse(`${bytes.toString('utf8', 0, headEnd! - 1)}}`) as Record<string, unknown>;
    const member = memberEnd === undefined ? null : (JSON.parse(`{${bytes.toString('utf8', headEnd! + 1, memberEnd - 1)}}}`) as { checkpoint?: { ledger?: { file?: unknown; bytes?: unknown } } });
    return { revision: head.revision, fence_generation: head.fence_generation, ...(member?.checkpoint?.ledger ? { ledger: member.checkpoint.ledger } : {}) };
  } catch {
    return null;
  }
}

/** A document not laid out as a checkpoint is a state from before schema 1 (or a hand edit): say how to import it. */
function notACheckpoint(start: string): string {
  return start.trimStart().startsWith('{')
    ? 'it is a JSON document but not a checkpoint laid out in lines (a project written before schema 1, or a state written as one plain document? run taskdag migrate --dry-run, then taskdag migrate to import it)'
    : 'it does not start with a checkpoint';
}

/**
 * The id list, checked as far as a few loops go: ids are strings and the offsets grow
 * and end where the node section does. That no id is listed twice is checked by whatever indexes
 * or lists every id (lazy-nodes.ts), not by every load: a set of 50k ids costs more than a `show`.
 */
function assertLayout(ids: unknown, ends: unknown, sectionBytes: number, path: string): { ids: NodeId[]; ends: number[] } {
  if (!Array.isArray(ids) || !Array.isArray(ends) || ids.length !== ends.length) throw invalidFile(path, 'its node index is malformed');
  for (let at = 0; at < ids.length; at++) if (typeof ids[at] !== 'string') throw invalidFile(path, 'its node ids are malformed');
  let previous = -1;
  for (let at = 0; at < ends.length; at++) {
    const end: unknown = ends[at];
    if (!Number.isInteger(end) || (end as number) <= previous) throw invalidFile(path, 'its node offsets are malformed');
    previous = end as number;
  }
  if (previous + 1 !== sectionBytes) throw invalidFile(path, 'its node section is truncated or has trailing bytes');
  return { ids: ids as NodeId[], ends: ends as number[] };
}

/** The position of a checkpoint kept in PostgreSQL (`decodeCheckpoint`'s `readRef` there). */
export function assertChangeSetsRef(value: unknown, path: string): ChangeSetsRef {
  const ref = value as Partial<ChangeSetsRef> | undefined;
  if (!ref || ref.table !== 'taskdag_change_sets' || !Number.isSafeInteger(ref.revision)) throw invalidFile(path, 'its change set reference is malformed');
  return { table: ref.table, revision: ref.revision! };
}

function assertRequests(value: unknown, path: string): RememberedRequest[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isRememberedRequest)) throw invalidFile(path, 'its remembered requests are malformed');
  return value;
}

function assertLedgerRef(value: unknown, path: string): LedgerRef {
  const ledger = value as Partial<LedgerRef> | undefined;
  if (!ledger || !/^ledger\.\d+\.jsonl$/.test(String(ledger.file)) || !Number.isInteger(ledger.bytes) || ledger.bytes! < 0) {
    throw invalidFile(path, 'its ledger reference is malformed');
  }
  return { file: ledger.file!, bytes: ledger.bytes! };
}
