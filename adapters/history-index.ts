/**
 * The history index of a ledger generation (`history.<generation>.idx`, docs/storage.md "The
 * history index"): the generation's log entries, up to a record boundary (`covered`), cut into
 * blocks of about BLOCK_BYTES of consecutive entries, each with a filter of every token its
 * entries could match `history <id>` on (spec: an entry's `node`, or a whole token of its note).
 * `history` reads the rows of its id's bits, then only the blocks whose filter has them all, each
 * checked against its CRC-32, then the records after `covered` as before: at 50k nodes and a
 * 200k-entry log a few blocks of 32 KB, not 21 MB (issue 28).
 *
 * A block is either a run of whole records (`R`), or, in a record whose log alone is longer than a
 * block (the one record a whole-state write puts the log in), a run of its log's entries (`E`):
 * from the first byte of an entry, after its tab, to the tab after the last (ledger-records.ts
 * writes each entry after a tab). A note may name a node created later, so the filter holds every
 * token, not the ids of nodes that exist: a block is never indexed again once written, and the
 * index grows by the records past `covered` only (encodeHistoryIndex from the previous file).
 *
 * The tokens of a block are those of the string values of its entries' `node` and `note` keys,
 * split as domain/history.ts splits a note (on any character but `A-Za-z0-9._:-`), each also
 * without its trailing `.` and `:`; an escape is a separator (it stands for a quote, a backslash, a
 * slash or a control character), and a block holding an escape of a printable ASCII character or
 * a key spaced otherwise than JSON.stringify writes it (neither written by taskdag; a hand edit
 * could) has every bit set. So every entry that names an id of those characters is in a block
 * whose filter has the id's bits. The filter is a Bloom filter of FILTER_BITS bits, HASHES bits a
 * token; a block of about 400 distinct tokens (300 entries of the bench's log) lets an absent id
 * through about once in 2,000.
 *
 * Binary, big-endian:
 *
 *   header   MAGIC (8), FILTER_BITS (4), block count (4), covered (6), identity (4), CRC-32 of those (4)
 *   rows     FILTER_BITS rows in groups of GROUP_ROWS, each group its CRC-32 (4, seeded with the
 *            header's CRC-32 and the group's number) then its rows: row `bit` holds bit `bit` of
 *            every block's filter, block `n` in bit `n % 8` of byte `n / 8`
 *   table    per block: start (6), end (6), kind (1, `R` or `E`), CRC-32 (4) of the ledger's bytes
 *            [start, end), seeded with the identity, the block's number, start, end and kind
 *
 * `identity` is the CRC-32 of the ledger's first record prefix (its checksum and length): an index
 * is only read beside the ledger it was made of. Every byte a reader uses is checked: the header,
 * each row group it reads, each block (entry and ledger bytes at once); anything that does not check,
 * a file of another length, or a ledger shorter than `covered`, and the reader reads the whole
 * ledger as before. Derived data, written without a sync: a file a power loss tore fails its checks.
 */
import { crc32 } from './crc32.js';
import { entriesNaming, entriesOfRun, holdsEscapedPrintable, intactRecordSpans, logTabs } from './ledger-records.js';
import type { LogEntry } from '../domain/model.js';
import { invalidFile } from './storage-error.js';

const MAGIC = Buffer.from('TDHIST2\n', 'latin1');
const FILTER_BITS = 8192;
const HASHES = 4;
/** A block closes once it holds this many bytes of entries (or records). */
const BLOCK_BYTES = 32 * 1024;
const HEADER_BYTES = MAGIC.length + 4 + 4 + 6 + 4 + 4;
/** Rows checked together: a query reads the groups of its bits, an extension checks 64 checksums, not 8,192. */
const GROUP_ROWS = 128;
const GROUPS = FILTER_BITS / GROUP_ROWS;
const GROUP_CRC = 4;
const TABLE_ENTRY = 17;
const RECORDS = 0x52;
const ENTRIES = 0x45;
/** Blocks let through above which the table is read at once rather than an entry at a time. */
const SINGLE_ENTRY_READS = 32;

export type BlockKind = 'records' | 'entries';

/** A block as built: where it is in the ledger, its filter (FILTER_BITS / 8 bytes) and its table entry's CRC-32. */
export interface IndexBlock {
  start: number;
  end: number;
  kind: BlockKind;
  filter: Uint8Array;
  crc: number;
}

/** A block a query reads: where it is, and the CRC-32 its ledger bytes must have (seeded with `seed`). */
export interface BlockToRead {
  start: number;
  end: number;
  kind: BlockKind;
  crc: number;
  seed: number;
}

/** The index file of a ledger generation's file (`ledger.7.jsonl`: `history.7.idx`). */
export function historyIndexFileOf(ledgerFile: string): string {
  return ledgerFile.replace(/^ledger\.(\d+)\.jsonl$/, 'history.$1.idx');
}

/** Whether `name` is a history index file (of any generation). */
export function isHistoryIndexFile(name: string): boolean {
  return /^history\.\d+\.idx$/.test(name);
}

/** What binds an index to its ledger: the CRC-32 of the ledger's first record prefix (null: the ledger is too short to have one). */
export function ledgerIdentity(ledgerStart: Buffer): number | null {
  return ledgerStart.length >= RECORD_PREFIX_BYTES ? crc32(ledgerStart.subarray(0, RECORD_PREFIX_BYTES)) : null;
}
/** `{"crc32":"<8>","bytes":"<10>","change":` (ledger-records.ts). */
export const RECORD_PREFIX_BYTES = 50;

// ---------------------------------------------------------------------------------------------
// Tokens and filters

/** Characters of a node id (domain/history.ts, NOT_ID_CHARACTER): anything else separates tokens. */
const ID_CHARACTER = new Uint8Array(256);
for (const range of ['AZ', 'az', '09']) for (let code = range.charCodeAt(0); code <= range.charCodeAt(1); code++) ID_CHARACTER[code] = 1;
for (const character of '._:-') ID_CHARACTER[character.charCodeAt(0)] = 1;
const DOT = 0x2e;
const COLON = 0x3a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function setToken(filter: Uint8Array, hash: number): void {
  const step = (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> 0) | 1;
  for (let at = 0; at < HASHES; at++) {
    const bit = (hash + Math.imul(at, step)) & (FILTER_BITS - 1);
    filter[bit >>> 3]! |= 1 << (bit & 7);
  }
}

/** The bits of the filter a token sets (a query reads these rows). */
function bitsOf(hash: number): number[] {
  const step = (Math.imul(hash ^ (hash >>> 15), 0x2c1b3c6d) >>> 0) | 1;
  const bits: number[] = [];
  for (let at = 0; at < HASHES; at++) bits.push((hash + Math.imul(at, step)) & (FILTER_BITS - 1));
  return bits;
}

/** FNV-1a of a text's bytes, as the tokenizer hashes a token (an id's characters are ASCII). */
function tokenHash(text: string): number {
  let hash = FNV_OFFSET;
  for (let at = 0; at < text.length; at++) hash = Math.imul(hash ^ text.charCodeAt(at), FNV_PRIME);
  return hash >>> 0;
}

/** The keys whose string values `history` matches on: a log entry's `node` and `note`. */
const KEY_START = Buffer.from('"no', 'latin1');

/**
 * Sets in `filter` the tokens of every string value of a `node` or `note` key in `bytes` (JSON as JSON.stringify writes it: no space around a colon); false, setting nothing, when
 * the bytes hold an escape of a printable ASCII character (a key or an id's letter written so,
 * which a search for the key or the id's bytes would miss) or a key followed by a space.
 */
function addTokens(filter: Uint8Array, bytes: Buffer): boolean {
  if (holdsEscapedPrintable(bytes)) return false;
  for (let at = bytes.indexOf(KEY_START); at >= 0; at = bytes.indexOf(KEY_START, at + 1)) {
    const tail = at + KEY_START.length;
    // `"node"` or `"note"`.
    if ((bytes[tail] !== 0x64 && bytes[tail] !== 0x74) || bytes[tail + 1] !== 0x65 || bytes[tail + 2] !== QUOTE) continue;
    const after = tail + 3;
    // A key is followed by a colon, a value by a comma or a closing bracket; anything else is JSON spaced otherwise.
    if (bytes[after] !== COLON) {
      if (isJsonSpace(bytes[after])) return false;
      continue;
    }
    if (bytes[after + 1] === QUOTE) addStringTokens(filter, bytes, after + 2);
    else if (isJsonSpace(bytes[after + 1])) return false;
  }
  return true;
}

function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Sets the tokens of the JSON string whose characters start at `start` (after its opening quote); escapes separate tokens. */
function addStringTokens(filter: Uint8Array, bytes: Uint8Array, start: number): void {
  let hash = FNV_OFFSET;
  let length = 0;
  // The token without its trailing dots and colons.
  let trimmedHash = FNV_OFFSET;
  let trimmedLength = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at]!;
    if (ID_CHARACTER[byte] === 1) {
      hash = Math.imul(hash ^ byte, FNV_PRIME);
      length++;
      if (byte !== DOT && byte !== COLON) {
        trimmedHash = hash;
        trimmedLength = length;
      }
      continue;
    }
    if (length > 0) {
      setToken(filter, hash >>> 0);
      if (trimmedLength > 0 && trimmedLength < length) setToken(filter, trimmedHash >>> 0);
      hash = trimmedHash = FNV_OFFSET;
      length = trimmedLength = 0;
    }
    if (byte === QUOTE) return;
    // An escape stands for a quote, a backslash, a slash or a control character (a printable one was ruled out before): a separator.
    if (byte === BACKSLASH) at += bytes[at + 1] === 0x75 ? 5 : 1;
  }
  if (length > 0) {
    setToken(filter, hash >>> 0);
    if (trimmedLength > 0 && trimmedLength < length) setToken(filter, trimmedHash >>> 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Building

/**
 * The blocks of the intact records of `bytes`, which start at ledger offset `base` on a record
 * boundary, numbered from `first` in the index of the ledger `identity` names, and where the last
 * of those records ends (`covered`, from the ledger's start): a torn or damaged record ends the
 * index there (the records from it on are read as the ledger's tail).
 */
export function indexBlocks(bytes: Buffer, base: number, identity: number, first = 0): { blocks: IndexBlock[]; covered: number } {
  const steps = blockSteps(bytes, base, identity, first);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** As indexBlocks, yielding each time about SLICE_BYTES more are indexed (inside one record too: a whole-state write's holds the whole log). */
function* blockSteps(bytes: Buffer, base: number, identity: number, first: number): Generator<void, { blocks: IndexBlock[]; covered: number }> {
  const blocks: IndexBlock[] = [];
  let pending: IndexBlock | null = null;
  let sinceTurn = 0;
  const close = (block: IndexBlock) => {
    const ordinal = first + blocks.length;
    block.crc = crc32(bytes.subarray(block.start - base, block.end - base), blockSeed(identity, ordinal, block));
    blocks.push(block);
    sinceTurn += block.end - block.start;
  };
  const spans = intactRecordSpans(bytes);
  for (const span of spans) {
    const body = bytes.subarray(span.bodyStart, span.bodyEnd);
    const tabs = logTabs(body);
    if (tabs && tabs.last - tabs.first > BLOCK_BYTES) {
      if (pending) close(pending);
      pending = null;
      for (const run of entryRuns(body, tabs.first, tabs.last)) {
        const block = newBlock(base + span.bodyStart + run.start, base + span.bodyStart + run.end, 'entries');
        filled(block, body, run.start, run.end);
        close(block);
        if (sinceTurn >= SLICE_BYTES) {
          sinceTurn = 0;
          yield;
        }
      }
      continue;
    }
    const block: IndexBlock = (pending ??= newBlock(base + span.start, base + span.end, 'records'));
    block.end = base + span.end;
    // Only the log holds entries; a record an earlier build wrote (no tabs) is taken whole.
    filled(block, body, tabs ? tabs.first : 0, tabs ? tabs.last : body.length);
    if (block.end - block.start >= BLOCK_BYTES) {
      close(block);
      pending = null;
      if (sinceTurn >= SLICE_BYTES) {
        sinceTurn = 0;
        yield;
      }
    }
  }
  if (pending) close(pending);
  return { blocks, covered: base + (spans.length > 0 ? spans[spans.length - 1]!.end : 0) };
}

/** How much of the ledger is indexed between two turns of a server's event loop (a few milliseconds of work). */
const SLICE_BYTES = 1024 * 1024;

/**
 * As indexBlocks, for the records from ledger offset `from` (a record boundary) to `upTo`, read by
 * `read` a slice of about SLICE_BYTES at a time (a record longer than that whole), yielding after
 * each slice: a server extends its index between the requests it serves.
 */
export function* blocksBetween(read: IndexRead, from: number, upTo: number, identity: number, first: number): Generator<void, { blocks: IndexBlock[]; covered: number }> {
  const blocks: IndexBlock[] = [];
  let covered = from;
  for (let slice = SLICE_BYTES; covered < upTo; ) {
    const end = Math.min(upTo, covered + slice);
    const found = yield* blockSteps(read(covered, end), covered, identity, first + blocks.length);
    if (found.covered === covered) {
      // No record ends in the slice: one longer than it, or damage (then the index ends here).
      if (end === upTo) break;
      slice = upTo - covered;
      continue;
    }
    for (const block of found.blocks) blocks.push(block);
    covered = found.covered;
    slice = SLICE_BYTES;
    yield;
  }
  return { blocks, covered };
}

function newBlock(start: number, end: number, kind: BlockKind): IndexBlock {
  return { start, end, kind, filter: new Uint8Array(FILTER_BITS / 8), crc: 0 };
}

/** Adds the tokens of `bytes` [start, end) to the block's filter; a block holding a printable character escaped lets every id through. */
function filled(block: IndexBlock, bytes: Buffer, start: number, end: number): void {
  if (!addTokens(block.filter, bytes.subarray(start, end))) block.filter.fill(0xff);
}

/** Runs of whole entries of a log written an entry after a tab (tabs at `first` and `last`), each about BLOCK_BYTES. */
function entryRuns(body: Buffer, first: number, last: number): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (let start = first + 1; start <= last; ) {
    // The first tab at least a block's length on (every tab there is an entry's start or the log's end).
    const next = body.indexOf(TAB, start + BLOCK_BYTES - 1);
    const end = next < 0 || next > last ? last : next;
    runs.push({ start, end });
    start = end + 1;
  }
  return runs;
}
const TAB = 0x09;

/** What a block's CRC-32 is seeded with: the ledger it is of, its number and its table entry, so that an entry damaged or moved fails its check. */
function blockSeed(identity: number, ordinal: number, block: { start: number; end: number; kind: BlockKind }): number {
  const seed = Buffer.alloc(21);
  seed.writeUInt32BE(identity, 0);
  seed.writeUInt32BE(ordinal, 4);
  seed.writeUIntBE(block.start, 8, 6);
  seed.writeUIntBE(block.end, 14, 6);
  seed[20] = block.kind === 'records' ? RECORDS : ENTRIES;
  return crc32(seed);
}

/** What row group `group`'s CRC-32 is seeded with: the header's, so that a group of another file or another place fails its check. */
function groupSeed(headerCrc: number, group: number): number {
  return (headerCrc ^ Math.imul(group + 1, 0x9e3779b1)) >>> 0;
}

function rowWidth(count: number): number {
  return Math.ceil(count / 8);
}

/** A row group's bytes: its CRC-32, then GROUP_ROWS rows of `width` bytes. */
function groupBytes(width: number): number {
  return GROUP_CRC + GROUP_ROWS * width;
}

/** Where row `bit` starts, from the start of the rows. */
function rowAt(bit: number, width: number): number {
  return (bit >>> 7) * groupBytes(width) + GROUP_CRC + (bit & (GROUP_ROWS - 1)) * width;
}

// ---------------------------------------------------------------------------------------------
// The file

/** An index file read whole and checked (header and every row): what an extension starts from. */
export interface CheckedIndex {
  identity: number;
  covered: number;
  count: number;
  /** The file, its rows checked (its table entries are checked when a query reads their blocks). */
  bytes: Buffer;
}

/**
 * The index of `previous`'s blocks and then `blocks` (those of the records from `previous`'s
 * `covered` to `covered`, numbered on from `previous`'s), of the ledger `identity` names.
 */
export function encodeHistoryIndex(identity: number, covered: number, blocks: readonly IndexBlock[], previous: CheckedIndex | null = null): Buffer {
  const before = previous?.count ?? 0;
  const count = before + blocks.length;
  const width = rowWidth(count);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(FILTER_BITS, 8);
  header.writeUInt32BE(count, 12);
  header.writeUIntBE(covered, 16, 6);
  header.writeUInt32BE(identity, 22);
  const headerCrc = crc32(header.subarray(0, HEADER_BYTES - 4));
  header.writeUInt32BE(headerCrc, HEADER_BYTES - 4);
  const rows = Buffer.alloc(GROUPS * groupBytes(width));
  if (previous) {
    // Byte by byte: a call a row (8,192 of a few dozen bytes) costs more than the bytes.
    const [oldWidth, old] = [rowWidth(before), previous.bytes];
    for (let bit = 0; bit < FILTER_BITS; bit++) {
      const [from, to] = [HEADER_BYTES + rowAt(bit, oldWidth), rowAt(bit, width)];
      for (let at = 0; at < oldWidth; at++) rows[to + at] = old[from + at]!;
    }
  }
  for (let at = 0; at < blocks.length; at++) {
    const filter = blocks[at]!.filter;
    const ordinal = before + at;
    const [column, mask] = [ordinal >>> 3, 1 << (ordinal & 7)];
    for (let byte = 0; byte < filter.length; byte++) {
      const value = filter[byte]!;
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (value & (1 << bit)) rows[rowAt(byte * 8 + bit, width) + column]! |= mask;
    }
  }
  for (let group = 0; group < GROUPS; group++) {
    const at = group * groupBytes(width);
    rows.writeUInt32BE(crc32(rows.subarray(at + GROUP_CRC, at + groupBytes(width)), groupSeed(headerCrc, group)), at);
  }
  const table = Buffer.alloc(TABLE_ENTRY * blocks.length);
  for (let at = 0; at < blocks.length; at++) {
    const [block, entry] = [blocks[at]!, at * TABLE_ENTRY];
    table.writeUIntBE(block.start, entry, 6);
    table.writeUIntBE(block.end, entry + 6, 6);
    table[entry + 12] = block.kind === 'records' ? RECORDS : ENTRIES;
    table.writeUInt32BE(block.crc, entry + 13);
  }
  const previousTable = previous ? previous.bytes.subarray(HEADER_BYTES + GROUPS * groupBytes(rowWidth(before))) : Buffer.alloc(0);
  return Buffer.concat([header, rows, previousTable, table]);
}

/** The header of an index, checked: null when it is not this format's, or its CRC-32 fails. */
function headerOf(header: Buffer): { count: number; covered: number; identity: number; crc: number } | null {
  if (header.length < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const crc = header.readUInt32BE(HEADER_BYTES - 4);
  if (crc32(header.subarray(0, HEADER_BYTES - 4)) !== crc || header.readUInt32BE(8) !== FILTER_BITS) return null;
  return { count: header.readUInt32BE(12), covered: header.readUIntBE(16, 6), identity: header.readUInt32BE(22), crc };
}

function fileBytes(count: number): number {
  return HEADER_BYTES + GROUPS * groupBytes(rowWidth(count)) + TABLE_ENTRY * count;
}

/** An index file read whole, its header and every row checked (null when one does not check, or it is not of its count's length). */
export function checkedIndex(bytes: Buffer): CheckedIndex | null {
  const header = headerOf(bytes.subarray(0, HEADER_BYTES));
  if (header === null || bytes.length !== fileBytes(header.count)) return null;
  const size = groupBytes(rowWidth(header.count));
  for (let group = 0; group < GROUPS; group++) {
    const at = HEADER_BYTES + group * size;
    if (crc32(bytes.subarray(at + GROUP_CRC, at + size), groupSeed(header.crc, group)) !== bytes.readUInt32BE(at)) return null;
  }
  return { identity: header.identity, covered: header.covered, count: header.count, bytes };
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Reads bytes [start, end) of the index file. */
export type IndexRead = (start: number, end: number) => Buffer;

/**
 * The blocks of an index (read by `read`, of `size` bytes) that may hold an entry naming `id`, in
 * ledger order, and where the index ends (`covered`); null when the index cannot answer so: not
 * this format, a header, row or table entry that does not check, not of the ledger `identity`
 * names, or an id with a character no token holds (every entry would have to be read).
 */
export function blocksNaming(read: IndexRead, size: number, identity: number, id: string): { covered: number; blocks: BlockToRead[] } | null {
  if (id.length === 0) return null;
  for (let at = 0; at < id.length; at++) if (id.charCodeAt(at) > 0x7f || !ID_CHARACTER[id.charCodeAt(at)]) return null;
  if (size < HEADER_BYTES) return null;
  const header = headerOf(read(0, HEADER_BYTES));
  if (header === null || header.identity !== identity || size !== fileBytes(header.count)) return null;
  const width = rowWidth(header.count);
  const groupSize = groupBytes(width);
  const groups = new Map<number, Buffer>();
  const kept = new Uint8Array(width).fill(0xff);
  for (const bit of new Set(bitsOf(tokenHash(id)))) {
    const group = bit >>> 7;
    let bytes = groups.get(group);
    if (!bytes) {
      const at = HEADER_BYTES + group * groupSize;
      bytes = read(at, at + groupSize);
      if (bytes.length !== groupSize || crc32(bytes.subarray(GROUP_CRC), groupSeed(header.crc, group)) !== bytes.readUInt32BE(0)) return null;
      groups.set(group, bytes);
    }
    const row = rowAt(bit, width) - group * groupSize;
    for (let column = 0; column < width; column++) kept[column]! &= bytes[row + column]!;
  }
  const ordinals: number[] = [];
  for (let ordinal = 0; ordinal < header.count; ordinal++) if (kept[ordinal >>> 3]! & (1 << (ordinal & 7))) ordinals.push(ordinal);
  const tableStart = HEADER_BYTES + GROUPS * groupSize;
  const whole = ordinals.length > SINGLE_ENTRY_READS ? read(tableStart, size) : null;
  const blocks: BlockToRead[] = [];
  for (const ordinal of ordinals) {
    const at = tableStart + ordinal * TABLE_ENTRY;
    const entry = whole ? whole.subarray(at - tableStart, at - tableStart + TABLE_ENTRY) : read(at, at + TABLE_ENTRY);
    if (entry.length !== TABLE_ENTRY) return null;
    const kind: BlockKind | null = entry[12] === RECORDS ? 'records' : entry[12] === ENTRIES ? 'entries' : null;
    const [start, end] = [entry.readUIntBE(0, 6), entry.readUIntBE(6, 6)];
    if (kind === null || start >= end || end > header.covered) return null;
    const block = { start, end, kind };
    // The stored CRC-32 is checked with the ledger's bytes, seeded with the entry: a damaged entry fails there.
    blocks.push({ ...block, crc: entry.readUInt32BE(13), seed: blockSeed(identity, ordinal, block) });
  }
  return { covered: header.covered, blocks };
}

/** Whether a block's ledger bytes are those it was built from (its entry as written, its bytes unchanged). */
export function blockHolds(block: BlockToRead, bytes: Buffer): boolean {
  return bytes.length === block.end - block.start && crc32(bytes, block.seed) === block.crc;
}

/** The log entries of the ledger's records from byte `from` to byte `to`, as a load replayed them (each record checked and parsed), in order. */
export interface ReplayedTail {
  from: number;
  to: number;
  logs: readonly (readonly LogEntry[])[];
}

/**
 * At least every log entry that names node `id` in the ledger's records up to `ledgerEnd` (a
 * record boundary), in log order, read through its index: the blocks the index lets through, each
 * checked, then the records after the index's end as `entriesNaming` reads them (damage there is
 * its STORAGE_ERROR, as for the whole ledger), or, for those a load replayed to `ledgerEnd`
 * (`replayed`), their entries as it parsed them: every one, not only those naming `id`. Null when
 * the index cannot answer: it does not check, is of another ledger, covers more than `ledgerEnd`,
 * or a block's bytes are not those it was built from; the caller reads the whole ledger, which
 * gives the same entries.
 */
export function entriesThroughIndex(
  index: IndexRead,
  indexSize: number,
  ledger: IndexRead,
  ledgerEnd: number,
  file: string,
  id: string,
  replayed: ReplayedTail | null = null,
): LogEntry[] | null {
  const identity = ledgerIdentity(ledger(0, RECORD_PREFIX_BYTES));
  const found = identity === null ? null : blocksNaming(index, indexSize, identity, id);
  if (found === null || found.covered > ledgerEnd) return null;
  const entries: LogEntry[] = [];
  for (const block of found.blocks) {
    const bytes = ledger(block.start, block.end);
    if (!blockHolds(block, bytes)) return null;
    const named = block.kind === 'entries' ? entriesOfRun(bytes, id) : wholeRecordsNaming(bytes, file, id, block.start);
    if (named === null) return null;
    for (const entry of named) entries.push(entry);
  }
  // The records the load replayed were checked and parsed by it: a point command's whole ledger tail, read once.
  const taken = replayed !== null && replayed.to === ledgerEnd && replayed.from >= found.covered ? replayed : null;
  const readTo = taken?.from ?? ledgerEnd;
  const tail = ledger(found.covered, readTo);
  const { entries: after, end } = entriesNaming(tail, file, id, found.covered);
  if (end !== tail.length) throw invalidFile(file, `the ledger record at byte ${found.covered + end}, before the checkpoint's position, is invalid`);
  for (const entry of after) entries.push(entry);
  for (const log of taken?.logs ?? []) for (const entry of log) entries.push(entry);
  return entries;
}

/** The entries that may name `id` in a run of whole records (a block at ledger offset `base`); null when they do not all read. */
function wholeRecordsNaming(bytes: Buffer, file: string, id: string, base: number): LogEntry[] | null {
  const { entries, end } = entriesNaming(bytes, file, id, base);
  return end === bytes.length ? entries : null;
}
