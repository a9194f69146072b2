import type { Edge, GraphNode, NodeId } from '../domain/model.js';
import { LAZY_COLLECTION, type EdgeList, type NodeMap } from '../domain/node-map.js';
import { crc32 } from './crc32.js';
import type { LineChecksums } from './heads-line.js';
import { DAMAGED, SlotTable, type SlotLayout } from './node-slots.js';
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
  /** Its position among the file's ids. */
  position: number;
  /** Found by the slot table (checked further when read: a span that does not hold sends the reader to the id list). */
  fromSlots?: boolean;
}

/**
 * Where a checkpoint's nodes are: the node section's bounds in the file, the id list (the ids in
 * file order and where each node's JSON ends, from the section's start), parsed on first use, and
 * the slot table that finds one node without it (null for a file of an earlier release, whose
 * line 2 holds the list, or when the table does not match the file).
 */
export interface NodeLayout {
  sectionStart: number;
  sectionEnd: number;
  /** Parses the id list, reading the file through `read`. */
  list(read: (start: number, end: number) => Buffer): { ids: readonly NodeId[]; ends: readonly number[] };
  /** Where the slot table's line starts, and its layout. */
  slots: { lineStart: number; layout: SlotLayout } | null;
}

/**
 * The nodes of one checkpoint, read as they are used: a command that reads ten nodes of fifty
 * thousand parses ten, found by the slot table (node-slots.ts) without parsing the id list, and
 * nothing is done per node when the checkpoint is opened. It is the
 * graph's node map (a NodeMap, domain/node-map.ts: `get`, `has`, `set`, `delete`, `ids`, `size`),
 * an explicit object rather than a record: a record of fifty thousand accessors cost 50-70 ms to
 * define at every load (issue 24). Each node is parsed on first `get` and kept; every node it
 * hands out is plain data. `plain` gives an ordinary record instead, every node parsed (a process
 * that keeps the state reads them all sooner or later). A malformed node is a STORAGE_ERROR
 * naming it, when it is read.
 *
 * It also remembers each node's checkpoint entry (`"id":{...}`) as read or last encoded: a change
 * to a node puts a new object in the map, never edits one in place, so while the map holds the
 * same object the entry is current, and the next checkpoint copies it instead of encoding the
 * node again (the server rewrites 59 MB at 50k nodes every few MB of ledger).
 *
 * Every node line it parses is checked against the CRC-32 the checkpoint saved for it
 * (`line_crc32`, heads-line.ts), when the checkpoint has them (a line handed out unparsed only to
 * rule its node out, `storedText`, is not: one not ruled out is then parsed and checked): a line
 * changed since it was written, even to the same length, is a STORAGE_ERROR naming the node, so no
 * command answers from a line other than the one the checkpoint's heads were derived from. A
 * checkpoint rewrite copies the saved checksum with the bytes of a node it never read, so damage
 * copied stays damage.
 *
 * Its source stays open until `close`: its owner (the store) closes it once nothing it handed
 * out can read a node from it any more; a read after that is a STORAGE_ERROR, never a read of a
 * descriptor reused meanwhile.
 */
export class CheckpointNodes implements NodeMap {
  readonly [LAZY_COLLECTION] = 'nodes' as const;
  /** The nodes read or set, by id, in the order they were first read or set. */
  private values = new Map<NodeId, GraphNode>();
  /** Ids deleted since (a file's node set again after that comes last in `ids`, as in a record). */
  private removed = new Set<NodeId>();
  private entries = new Map<NodeId, { node: GraphNode; entry: NodeEntry }>();
  /** Positions by id, made once a command has looked up more than a few ids (a scan of the ids costs less until then). */
  private positions: Map<NodeId, number> | null = null;
  private scans = 0;
  private slotLookups = 0;
  private open = true;
  /** The id list, once parsed; until then lookups go through the slot table (when there is one that holds). */
  private list: { ids: readonly NodeId[]; ends: readonly number[] } | null = null;
  /** The id list as a set, once a command has listed every id. */
  private fileSet: ReadonlySet<NodeId> | null = null;
  private slots: SlotTable | null;
  private lineHints: ((id: NodeId) => LineHint | undefined) | null = null;
  /** The positions of the nodes read where the hints say, their lines checked there: found without the slot table. */
  private readonly hintedPositions = new Map<NodeId, number>();
  /**
   * The positions `filePosition` found by a lookup (undefined: the file has no such node), asked
   * again for the same ids (a changed node's saved bucket, its edges and its line each ask): the
   * file never changes while open. Dropped with the slot table that answered them.
   */
  private readonly foundPositions = new Map<NodeId, number | undefined>();
  /**
   * Positions the ledger tail's records say their nodes have in this file (`notePositions`), kept
   * by the process that appended each record: a changed node's saved bucket and endpoints entry
   * are found without its slot lookup. Each entry read at such a position names its node (a
   * bucket's check reads the endpoints entry, which does), so a wrong one reads as damage there.
   */
  private readonly ledgerPositions = new Map<NodeId, number>();
  /** The checksums each node line was written with (read when first needed), or null for a checkpoint without them. */
  private lineChecksums: () => LineChecksums | null = () => null;
  /**
   * The bytes `storedText` read last, and where from: search reads a line to rule its node out
   * and, when the line cannot, parses that very line next (`get`), which takes them from here
   * rather than reading the file again. One line at most, taken once; the file never changes
   * while open.
   */
  private lastStored: { start: number; bytes: Buffer } | null = null;
  /** The node section, once a rewrite read it whole (sectionBytes). */
  private section: Buffer | null = null;
  /** The whole file, once a rewrite read it (readWhole). */
  private whole: Buffer | null = null;
  /** The heads line's sections a rewrite may copy from (derived by this release's rules, checked), by name; null: none. */
  private sections: ((name: string) => Buffer | null) | null = null;

  /**
   * `identity` names this very file (its ledger position and heads checksum, `checkpointIdentity`):
   * what the positions a ledger record keeps are tied to; null when the file has none to give.
   */
  constructor(
    private readonly source: ByteSource,
    private readonly layout: NodeLayout,
    private readonly path: string,
    readonly identity: string | null = null,
  ) {
    this.slots = layout.slots && new SlotTable((start, end) => this.bytes(start, end, 'the slot table'), layout.slots.lineStart, layout.slots.layout);
  }

  get(id: NodeId): GraphNode | undefined {
    const known = this.values.get(id);
    if (known !== undefined || this.removed.has(id)) return known;
    const hinted = this.hintedNode(id);
    if (hinted !== undefined) return hinted;
    const span = this.locate(id, true);
    return span === undefined ? undefined : this.read(id, span);
  }

  has(id: NodeId): boolean {
    return this.values.has(id) || (!this.removed.has(id) && this.locate(id) !== undefined);
  }

  /** Looks nothing up: replaying a ledger tail sets many nodes, and only `ids` needs to know which are new. */
  set(id: NodeId, node: GraphNode): void {
    this.values.set(id, node);
  }

  delete(id: NodeId): void {
    this.values.delete(id);
    this.removed.add(id);
  }

  /** The file's ids not deleted, then the others set since, in the order they were set (a record's order). */
  ids(): NodeId[] {
    const inFile = this.fileIdsIndexed();
    const fileIds = this.fileIds();
    const kept = this.removed.size === 0 ? fileIds : fileIds.filter((id) => !this.removed.has(id));
    const added = [...this.values.keys()].filter((id) => !inFile.has(id) || this.removed.has(id));
    return kept.concat(added);
  }

  /** How many ids `ids` lists, counted without listing them. */
  get size(): number {
    const inFile = this.fileIdsIndexed();
    let count = this.fileIds().length;
    for (const id of this.removed) if (inFile.has(id)) count--;
    for (const id of this.values.keys()) if (!inFile.has(id) || this.removed.has(id)) count++;
    return count;
  }

  /** A plain node map of every node, each parsed (for a process that keeps its state). */
  plain(): Record<NodeId, GraphNode> {
    const plain: Record<NodeId, GraphNode> = {};
    for (const id of this.ids()) plain[id] = this.get(id)!;
    return plain;
  }

  /**
   * The checkpoint entry of node `id` as `node` (default: as the map holds it now), with its line's
   * CRC-32: its bytes as read when unread or unchanged since, with the checksum the file saved for
   * them (an unread line is copied unchecked, and its damage with it: its old checksum keeps it
   * found); else encoded now (and remembered).
   */
  entry(id: NodeId, node?: GraphNode): NodeEntry {
    const unread = node === undefined && !this.values.has(id) && !this.removed.has(id) ? this.locate(id) : undefined;
    if (unread) {
      const bytes = this.bytes(unread.key, unread.end, `node ${id}`);
      return { bytes, crc: this.lineChecksums()?.checkedAt(unread.position) ?? crc32(bytes) };
    }
    node ??= this.get(id)!;
    const known = this.entries.get(id);
    if (known?.node === node) return known.entry;
    const bytes = Buffer.from(`${JSON.stringify(id)}:${JSON.stringify(node)}`);
    const entry = { bytes, crc: crc32(bytes) };
    this.entries.set(id, { node, entry });
    return entry;
  }

  /**
   * For a rewrite that writes node `id` at `position` of the file's ids, when that is where the
   * file has it and it was never read, set or removed: where its line is in `sectionBytes()` (its
   * first byte and its JSON's end), with the checksum the file saved for it; undefined otherwise
   * (`entry` gives it). A rewrite copies tens of thousands of such lines: found by position, not
   * looked up one by one, and read in one piece, not a read each (issue 28).
   */
  unreadLineAt(id: NodeId, position: number): { start: number; end: number } | undefined {
    if (this.values.has(id) || this.removed.has(id)) return undefined;
    const { ids, ends } = this.listed();
    if (ids[position] !== id) return undefined;
    return { start: position === 0 ? 0 : ends[position - 1]! + 2, end: ends[position]! };
  }

  /** The CRC-32 a rewrite writes for the unread line at `position` (`unreadLineAt`): the one the file saved for it, or else its own. */
  unreadLineChecksum(position: number, line: { start: number; end: number }): number {
    return this.lineChecksums()?.checkedAt(position) ?? crc32(this.sectionBytes().subarray(line.start, line.end));
  }

  /**
   * The `line_crc32` section as saved (`"<8 hex digits a line>"`), when it holds its own checksum
   * and one per line of the file: a rewrite copies the digits of the lines it copies. Null otherwise.
   */
  savedLineChecksums(): Buffer | null {
    const saved = this.lineChecksums()?.intact() ? this.savedSection('line_crc32') : null;
    return saved && saved.length === 2 + 8 * this.fileIds().length ? saved : null;
  }

  /** The whole node section (from the first node line's key to the last one's newline), read once. */
  sectionBytes(): Buffer {
    this.section ??= this.bytes(this.layout.sectionStart, this.layout.sectionEnd, 'the node section');
    return this.section;
  }

  /**
   * Where some nodes' lines are, as another part of the checkpoint says (offsets from the first
   * node line, and the node's position among the ids): such a line is read without looking its id
   * up, when its key, end and checksum hold.
   */
  hintLines(lines: (id: NodeId) => LineHint | undefined): void {
    this.lineHints = lines;
  }

  /**
   * Where a rewrite finds the sections of the heads line derived by this release's rules (each
   * checked against its checksum when read; null when it does not check), to copy what the ledger
   * tail did not change.
   */
  keepSections(read: (name: string) => Buffer | null): void {
    this.sections = read;
  }

  /** A section of the heads line the checkpoint was read from, when it was derived by this release's rules and checks; null otherwise. */
  savedSection(name: string): Buffer | null {
    return this.sections?.(name) ?? null;
  }

  /** Where the CRC-32 each node line was written with is (asked for when a line is first checked). */
  checkLines(checksums: () => LineChecksums | null): void {
    let known: LineChecksums | null | undefined;
    this.lineChecksums = () => (known === undefined ? (known = checksums()) : known);
  }

  /**
   * Node `id`'s line as stored (its key included), while it has not been read or set; undefined
   * otherwise. Its checksum is not checked: the text only rules a node out (search's prefilter),
   * and a node not ruled out is then read by `get`, which checks it. A damaged line ruled out is
   * like any line a command does not read (5 MB of knowledge lines at 50k nodes, checksummed by a
   * one-match search, cost it more than its answer did).
   */
  storedText(id: NodeId): string | undefined {
    if (this.values.has(id) || this.removed.has(id)) return undefined;
    const hinted = this.hintedEntry(id, true);
    if (hinted !== undefined) return hinted.toString('utf8');
    const span = this.locate(id);
    if (span === undefined) return undefined;
    // Read as `parse` reads it, so that parsing the line next takes these bytes (lineBytes).
    const [before, after] = marginsOf(span);
    const line = this.keptBytes(span.key - before, span.end + 1 + after, `node ${id}`).subarray(before, before + span.end + 1 - span.key);
    // A span from the slot table must end its line as a node's does (its key was checked): else the id list says where it is.
    const endsThere = line[line.length - 1] === (span.last ? 0x0a : 0x2c) && line.indexOf(0x0a) === (span.last ? line.length - 1 : -1);
    if (span.fromSlots && !endsThere) {
      this.dropSlots();
      return this.storedText(id);
    }
    return line.toString('utf8', 0, line.length - 1);
  }

  /**
   * Node `id` read from its line where the hints say it is, when it is there and holds a node;
   * undefined otherwise (the id is then looked up, and a damaged line reported as such).
   */
  private hintedNode(id: NodeId): GraphNode | undefined {
    const line = this.hintedLine(id);
    if (line === undefined) return undefined;
    let node: unknown;
    try {
      node = JSON.parse(line.bytes.toString('utf8', Buffer.byteLength(JSON.stringify(id)) + 1));
      assertNodeShape(node, id, this.path);
    } catch {
      return undefined;
    }
    this.entries.set(id, { node, entry: line });
    this.values.set(id, node);
    this.hintedPositions.set(id, this.lineHints!(id)!.position);
    return node;
  }

  /**
   * Node `id`'s stored line (without its ending) and its checksum where the hints say it is, when
   * it is there and is the line its position's checksum describes (one that is not is left to the
   * lookup, which reports it if it is the node's).
   */
  private hintedLine(id: NodeId): NodeEntry | undefined {
    const entry = this.hintedEntry(id);
    if (entry === undefined) return undefined;
    const crc = crc32(entry);
    const hint = this.lineHints!(id)!;
    // A hint that gives the line's checksum as written vouches for it when they agree; else `line_crc32` says (and whether the line is damaged).
    return hint.crc === crc || this.checksumHolds(hint.position, entry, crc) ? { bytes: entry, crc } : undefined;
  }

  /**
   * Node `id`'s stored line (without its ending) where the hints say it is, when it is there:
   * keyed by the id and ended as a node line is (its checksum unchecked). `keep`: its bytes are
   * kept for the parse that may follow (storedText).
   */
  private hintedEntry(id: NodeId, keep = false): Buffer | undefined {
    const hint = this.lineHints?.(id);
    if (!hint) return undefined;
    const { sectionStart, sectionEnd } = this.layout;
    const end = sectionStart + hint.end;
    if (hint.key < 0 || end >= sectionEnd) return undefined;
    // Read with the bytes around it: a span is a node's line only if it is a whole line (a key
    // inside another line, as a meta key can read, or an end at a comma inside the line, is not).
    const [from, to] = [sectionStart + hint.key - 1, end + 2];
    const around = keep ? this.keptBytes(from, to, `node ${id}`) : this.lineBytes(from, to, `node ${id}`);
    const line = around.subarray(1, around.length - 1);
    const key = `${JSON.stringify(id)}:`;
    const terminator = line[line.length - 1];
    const whole = around[0] === 0x0a && (terminator === 0x2c ? around[around.length - 1] === 0x0a : terminator === 0x0a && end === sectionEnd - 1);
    if (!whole || line.toString('utf8', 0, Buffer.byteLength(key)) !== key || line.indexOf(0x0a) !== (terminator === 0x0a ? line.length - 1 : -1)) return undefined;
    return line.subarray(0, line.length - 1);
  }

  /**
   * Node `id`'s position among the file's ids (what the checkpoint's per-node sections are ordered
   * by); undefined when the file has none. A node read where the hints say has the position they
   * gave, its line checked against that position's checksum (what is read at a position, an
   * endpoints entry, names its node too).
   */
  filePosition(id: NodeId): number | undefined {
    const hinted = this.hintedPositions.get(id) ?? this.ledgerPositions.get(id);
    if (hinted !== undefined) return hinted;
    if (!this.foundPositions.has(id)) this.foundPositions.set(id, this.locate(id)?.position);
    return this.foundPositions.get(id);
  }

  /**
   * Node `id`'s position among the file's ids when this map already knows it (its line was read, a
   * hint or a ledger record gave it), looked up nowhere: what a ledger record keeps of the nodes it
   * changes (`positionsOfChanges`). Undefined otherwise.
   */
  knownPosition(id: NodeId): number | undefined {
    return this.hintedPositions.get(id) ?? this.ledgerPositions.get(id) ?? this.foundPositions.get(id);
  }

  /**
   * Takes the positions a ledger record kept of its nodes in this very file (`knownPosition` of the
   * process that appended it; ledger-records.ts `keptPositions`): `at` lists each id followed by
   * its position. A pair that is not an id and a position ends the list (what follows is not taken).
   */
  notePositions(at: readonly unknown[]): void {
    for (let index = 0; index + 1 < at.length; index += 2) {
      const id = at[index];
      const position = at[index + 1];
      if (typeof id !== 'string' || typeof position !== 'number' || !Number.isSafeInteger(position) || position < 0) return;
      this.ledgerPositions.set(id, position);
    }
  }

  /** How many nodes the file holds (the slot table says, until the id list is parsed). */
  fileCount(): number {
    return this.slots && !this.list ? this.slots.nodes : this.fileIds().length;
  }

  /**
   * The map as it is now, for a checkpoint encoded while commits go on (a hot store's, whose
   * source is bytes in memory that never change): the nodes read or set and the ids deleted, as
   * lists copied whole (about a millisecond for 50k; a Map copied took 10-80 ms), no node read or
   * looked up. Nothing set or deleted after this changes it, and the nodes never read stay the
   * file's bytes.
   */
  frozen(): FrozenNodes {
    return {
      values: Array.from(this.values),
      removed: Array.from(this.removed),
      thaw: (values, removed) => {
        const copy = new CheckpointNodes(this.source, this.layout, this.path, this.identity);
        copy.values = values;
        copy.removed = removed;
        // An entry is used only for the very node object it was made from, so sharing them is safe.
        copy.entries = this.entries;
        copy.positions = this.positions;
        copy.scans = this.scans;
        copy.slotLookups = this.slotLookups;
        copy.list = this.list;
        copy.fileSet = this.fileSet;
        copy.slots = this.slots;
        copy.lineChecksums = this.lineChecksums;
        copy.section = this.section;
        copy.sections = this.sections;
        return copy;
      },
    };
  }

  /** Bytes of a node's line read by `storedText` and kept for its parse (see lastStored). */
  private keptBytes(start: number, end: number, what: string): Buffer {
    const bytes = this.bytes(start, end, what);
    this.lastStored = { start, bytes };
    return bytes;
  }

  /** Bytes of a node's line: those `storedText` read last when they hold them (once), else read. */
  private lineBytes(start: number, end: number, what: string): Buffer {
    const kept = this.lastStored;
    if (kept === null || !this.open || start < kept.start || end > kept.start + kept.bytes.length) return this.bytes(start, end, what);
    this.lastStored = null;
    return kept.bytes.subarray(start - kept.start, end - kept.start);
  }

  /** Bytes of the checkpoint, while it is open (`what` names what was read too late). */
  bytes(start: number, end: number, what: string): Buffer {
    if (!this.open) throw invalidFile(this.path, `${what} was read after the checkpoint was closed (a lazily read graph outlived its call)`);
    return this.whole ? this.whole.subarray(start, Math.min(end, this.whole.length)) : this.source.bytes(start, end);
  }

  /**
   * Reads the whole file at once, every later read a slice of it: for a rewrite, which copies most
   * of it and reads the rest a piece at a time (slot buckets, heads sections, endpoints entries,
   * the nodes it lists), a read each (issue 28: at 50k nodes, tens of thousands of reads).
   */
  readWhole(): void {
    this.whole ??= this.bytes(0, this.source.size, 'the checkpoint');
  }

  /** Releases the source; nodes not read by then cannot be read any more. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.source.close?.();
  }

  /** The ids of the file, in its order (the id list, parsed now if it was not). */
  fileIds(): readonly NodeId[] {
    return this.listed().ids;
  }

  /** The file's ids as a set, made once: the file's list never changes, and a whole-graph command asks for every id more than once. */
  private fileIdsIndexed(): ReadonlySet<NodeId> {
    this.fileSet ??= this.fileIdSet();
    return this.fileSet;
  }

  /** The file's ids as a set, checked unique (a command that reads every id finds an id listed twice). */
  private fileIdSet(): Set<NodeId> {
    const set = new Set(this.fileIds());
    if (set.size !== this.fileIds().length) throw invalidFile(this.path, 'its node ids are malformed (an id is listed twice)');
    return set;
  }

  private listed(): { ids: readonly NodeId[]; ends: readonly number[] } {
    this.list ??= this.layout.list((start, end) => this.bytes(start, end, 'the id list'));
    return this.list;
  }

  /**
   * Where node `id` of the file is: by the slot table until the id list is parsed (a command that
   * lists every id then finds the others by it), else by the list. A table that does not hold
   * (a bucket fails its check, or no entry it names is the id's line) is dropped for the list.
   */
  private locate(id: NodeId, readsLine = false): NodeSpan | undefined {
    if (this.slots && !this.list && this.slotLookups++ < slotLookupBudget(this.slots.nodes)) {
      const found = this.bySlots(id, this.slots, readsLine);
      if (found !== DAMAGED) return found;
      this.dropSlots();
    }
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.spanAt(position);
  }

  /**
   * The span of the slot table's entry whose line is keyed by `id`, undefined when it has none,
   * DAMAGED when it cannot say. The key is read and checked here, unless the caller reads the
   * line anyway (`readsLine`) and the table names one entry: the line's own check then covers it.
   */
  private bySlots(id: NodeId, slots: SlotTable, readsLine: boolean): NodeSpan | undefined | typeof DAMAGED {
    const candidates = slots.candidates(id);
    if (candidates === DAMAGED || candidates.length === 0) return candidates === DAMAGED ? DAMAGED : undefined;
    const { sectionStart, sectionEnd } = this.layout;
    const key = Buffer.from(`\n${JSON.stringify(id)}:`);
    for (const { offset, length, position } of candidates) {
      const at = sectionStart + offset;
      // The entry's line starts right after a newline with the id's key (JSON strings hold no raw newline).
      if ((readsLine && candidates.length === 1) || this.bytes(at - 1, at - 1 + key.length, `node ${id}`).equals(key)) {
        return { key: at, start: at + key.length - 1, end: at + length, last: at + length === sectionEnd - 1, position, fromSlots: true };
      }
    }
    // Only another id sharing the fingerprint, or a table pointing elsewhere: the list says which.
    return DAMAGED;
  }

  /** The slot table proved damaged: the id list answers from here on, the positions the table gave included. */
  private dropSlots(): void {
    this.slots = null;
    this.foundPositions.clear();
  }

  private positionOf(id: NodeId): number | undefined {
    if (this.positions) return this.positions.get(id);
    const ids = this.fileIds();
    if (++this.scans <= POSITION_SCANS) {
      const at = ids.indexOf(id);
      return at < 0 ? undefined : at;
    }
    const positions = new Map(ids.map((known, position) => [known, position]));
    if (positions.size !== ids.length) throw invalidFile(this.path, 'its node ids are malformed (an id is listed twice)');
    this.positions = positions;
    return positions.get(id);
  }

  /** Where the node at `position` of the id list lies; a node's line starts two bytes after the previous one's end (`,` and a newline). */
  private spanAt(position: number): NodeSpan {
    const { ids, ends } = this.listed();
    const { sectionStart } = this.layout;
    const key = position === 0 ? sectionStart : sectionStart + ends[position - 1]! + 2;
    return { key, start: key + ids[position]!.length + 3, end: sectionStart + ends[position]!, last: position === ids.length - 1, position };
  }

  private read(id: NodeId, span: NodeSpan): GraphNode | undefined {
    let node: GraphNode;
    let position = span.position;
    try {
      node = this.parse(id, span);
    } catch (error) {
      if (!span.fromSlots) throw error;
      // The table's span did not hold: the id list decides (and reports the damage, if it is the node's).
      this.dropSlots();
      const listed = this.locate(id, true);
      if (listed === undefined) return undefined;
      node = this.parse(id, listed);
      position = listed.position;
    }
    // Its line was read there, keyed by the id: a later lookup of its position need not look again.
    this.foundPositions.set(id, position);
    this.values.set(id, node);
    return node;
  }

  private parse(id: NodeId, span: NodeSpan): GraphNode {
    const [before, after] = marginsOf(span);
    const bytes = this.lineBytes(span.key - before, span.end + 1 + after, `node ${id}`);
    const line = bytes.subarray(before, before + span.end + 1 - span.key);
    const whole = before === 0 || (bytes[0] === 0x0a && (after === 0 || bytes[bytes.length - 1] === 0x0a));
    const endsThere = whole && bytes.length === before + span.end + 1 + after - span.key && line[line.length - 1] === (span.last ? 0x0a : 0x2c);
    if (!endsThere || (span.fromSlots && line.indexOf(0x0a) !== (span.last ? line.length - 1 : -1))) throw invalidFile(this.path, `the line of node ${id} does not end where the node offsets say`);
    if (line.toString('utf8', 0, span.start - span.key) !== `${JSON.stringify(id)}:`) throw invalidFile(this.path, `the line of node ${id} is keyed by another id`);
    let node: unknown;
    try {
      node = JSON.parse(line.toString('utf8', span.start - span.key, line.length - 1));
    } catch {
      throw invalidFile(this.path, `node ${id} is not JSON`);
    }
    assertNodeShape(node, id, this.path);
    const entry = line.subarray(0, line.length - 1);
    this.entries.set(id, { node, entry: { bytes: entry, crc: this.assertChecksum(id, span.position, entry) } });
    return node;
  }

  /** Whether `entry` (of CRC-32 `crc`) is the line the file saved the checksum of at `position` (true when it saved none, or none that holds). */
  private checksumHolds(position: number, entry: Buffer, crc = crc32(entry)): boolean {
    const checksums = this.lineChecksums();
    const saved = checksums?.at(position);
    return saved === undefined || saved === crc || !checksums!.intact();
  }

  /**
   * The CRC-32 of node `id`'s line `entry`, checked against the one the file saved for it: a line
   * edited since it was written (even to the same length, a task's status letters) is damage, as
   * a line that is not JSON is. The heads beside it were derived from the line as written, and
   * `status`, which reads them, would answer otherwise than `take`, which reads the line. A
   * checksum section that fails its own check says nothing (the heads line is damaged, not the node).
   */
  private assertChecksum(id: NodeId, position: number, entry: Buffer): number {
    const crc = crc32(entry);
    if (!this.checksumHolds(position, entry, crc)) {
      throw invalidFile(this.path, `the line of node ${id} is not the one the checkpoint was written with (its CRC-32 differs from the one saved for it)`);
    }
    return crc;
  }
}

/**
 * Where a node's line is, as a section of the heads line says (its first byte and its JSON's end,
 * from the first node line, and its place among the ids), and, where that section saves it, the
 * line's CRC-32 as written (checked against the line read, as `line_crc32`'s would be).
 */
export interface LineHint {
  key: number;
  end: number;
  position: number;
  crc?: number;
}

/** A node's checkpoint entry (`"id":{...}`) and its CRC-32, what the line's checksum in the heads is. */
export interface NodeEntry {
  bytes: Buffer;
  crc: number;
}

/** A CheckpointNodes as it was when `frozen` was called, held as lists. */
export interface FrozenNodes {
  /** The nodes read or set, in the order first read or set. */
  readonly values: readonly (readonly [NodeId, GraphNode])[];
  readonly removed: readonly NodeId[];
  /** The map it was, with `values` and `removed` as a Map and a Set (which the caller builds a slice at a time). */
  thaw(values: Map<NodeId, GraphNode>, removed: Set<NodeId>): CheckpointNodes;
}

/**
 * How many nodes of `count` a command finds by the slot table before it parses the id list
 * instead: each lookup reads and checks a bucket, so past a number that grows with the graph
 * (what parsing the list costs), the list costs less than the lookups still to come. Generous,
 * since a list parsed late, with the nodes read so far on the heap, costs more than at open
 * (BENCHMARKS.md, issue 28).
 */
function slotLookupBudget(count: number): number {
  return Math.max(256, Math.ceil(count / 8));
}

/**
 * How many ids a command looks up by scanning the id list before it indexes them all: a scan of
 * 50k ids costs about 0.2 ms, indexing them 10-20 ms.
 */
const POSITION_SCANS = 64;

/** The bytes read before and after a span's line: one each side for a span from the slot table, to see that it is a whole line. */
function marginsOf(span: NodeSpan): [number, number] {
  return span.fromSlots ? [1, span.last ? 0 : 1] : [0, 0];
}

/**
 * The edges of one checkpoint, parsed (and their shape checked) when first used: a command that
 * reads no edge (`show`, `update`) never parses the line, and a checkpoint rewrite copies its
 * bytes (so edges damaged in the file are found when read, as a damaged node is, and neither
 * spread nor hide). Edges appended before then are kept aside and follow the file's.
 */
export class CheckpointEdges implements EdgeList {
  readonly [LAZY_COLLECTION] = 'edges' as const;
  private list: Edge[] | null = null;
  private readonly appended: Edge[] = [];

  /**
   * `read` parses the file's edges (their checksum checked); `raw` gives their bytes as written,
   * between the list's brackets; `crc` is the CRC-32 the file saved for those bytes (null: none
   * saved, a file written before it).
   */
  constructor(
    private readonly read: () => Edge[],
    private readonly raw: () => Buffer,
    private readonly crc: number | null = null,
  ) {}

  /** While the file's edges are unread: their bytes as written, the CRC-32 saved for them, and the edges appended since; else null. */
  unread(): { bytes: Buffer; crc: number | null; appended: readonly Edge[] } | null {
    return this.list === null ? { bytes: this.raw(), crc: this.crc, appended: [...this.appended] } : null;
  }

  all(): Edge[] {
    if (this.list === null) {
      this.list = this.read();
      this.list.push(...this.appended);
      this.appended.length = 0;
    }
    return this.list;
  }

  push(edge: Edge): void {
    if (this.list) this.list.push(edge);
    else this.appended.push(edge);
  }
}
