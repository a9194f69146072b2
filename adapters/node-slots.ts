import type { NodeId } from '../domain/model.js';
import { crc32, crc32OfWords } from './crc32.js';
import { eightHexDigits } from './hex-digits.js';

/**
 * The checkpoint's slot table (docs/storage.md): an open-addressing hash table that finds one
 * node's line from its id with a read of a few hundred bytes, so that a command reading a few
 * nodes never parses the id list (50k ids and their offsets are 940 KB of JSON).
 *
 * It is the line `"slots":["<bucket>",...],` of the checkpoint member, described on line 2 by
 * `slot_layout` (`{format, buckets, node_bytes, nodes}`). Each bucket is a string of fixed width:
 * the CRC-32 of the bucket (8 hex digits), then SLOTS_PER_BUCKET entries of 26 hex digits each, a
 * node's fingerprint (4), the offset of its line from the start of the node section (8), the
 * length of its entry `"id":{...}` (8) and its position among the file's ids (6: what the heads
 * line's per-node sections are ordered by); an empty entry is all zeros, and only follows full
 * ones.
 * A node goes in the first bucket with room, from bucket `hash % buckets` on (wrapping), so a
 * lookup stops at the first bucket with an empty entry.
 *
 * Nothing it says is taken on trust: a bucket whose CRC-32 (seeded with its number, the bucket
 * count and the node section's length, so a bucket moved, a table of another file or a node
 * section of another length does not match) differs, or a hit whose line is not keyed by the id,
 * makes the reader use the id list instead (lazy-nodes.ts).
 */
export const SLOT_TABLE_FORMAT = 1;
const SLOTS_PER_BUCKET = 8;
/** Buckets are filled to three quarters on average, so a lookup rarely reads past one. */
const FILLED_PER_BUCKET = 6;
const ENTRY_CHARS = 26;
const CRC_CHARS = 8;
const BUCKET_CHARS = CRC_CHARS + SLOTS_PER_BUCKET * ENTRY_CHARS;
/** A bucket in the line: its quotes and the comma (or, for the last, the closing bracket). */
const BUCKET_STRIDE = BUCKET_CHARS + 3;
const OPENING = '"slots":[';
const CLOSING = '],\n';
/** Offsets and lengths are 8 hex digits, positions 6: a node section this long, or this many nodes, gets no table. */
const LIMIT = 2 ** 32;
const NODES_LIMIT = 2 ** 24;
/** How many buckets a lookup reads at once: one read finds nearly every node. */
const READ_AHEAD = 4;

/** What line 2 says of the table. */
export interface SlotLayout {
  format: number;
  buckets: number;
  node_bytes: number;
  nodes: number;
}

/** Where the table found a node's entry, relative to the node section: the line's start and the entry's length; and its position among the ids. */
export interface SlotHit {
  offset: number;
  length: number;
  position: number;
}

/** The line's text opening, for the layout checks of a reader. */
export const SLOTS_LINE_OPENING = OPENING;

/** FNV-1a (32 bits) over the id's UTF-16 code units (node ids are ASCII: domain/ids.ts). */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < id.length; at++) hash = Math.imul(hash ^ id.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

const fingerprintOf = (hash: number): number => hash >>> 16;

/** The CRC-32 that seeds a bucket's: its number, the bucket count and the node section's length. */
function bucketSeed(bucket: number, buckets: number, nodeBytes: number): number {
  return crc32OfWords(bucket, buckets, nodeBytes);
}

/**
 * The table for nodes `ids` whose JSON ends at `ends` (as line 2 of earlier releases listed them:
 * from the node section's start), in a node section of `nodeBytes`: its layout and its line.
 * Null when the section is too long to address. Yields every `slice` nodes' worth of work.
 */
export function* encodeSlotTable(ids: readonly NodeId[], ends: readonly number[], nodeBytes: number, slice: number): Generator<void, { layout: SlotLayout; line: Buffer } | null> {
  if (nodeBytes >= LIMIT || ids.length >= NODES_LIMIT) return null;
  const buckets = bucketsFor(ids.length);
  const filled = new Uint8Array(buckets);
  const entries = new Uint32Array(buckets * SLOTS_PER_BUCKET * 4);
  for (let position = 0; position < ids.length; position++) {
    if (position > 0 && position % slice === 0) yield;
    const hash = hashOf(ids[position]!);
    let bucket = hash % buckets;
    while (filled[bucket] === SLOTS_PER_BUCKET) bucket = (bucket + 1) % buckets;
    const at = (bucket * SLOTS_PER_BUCKET + filled[bucket]!++) * 4;
    const offset = position === 0 ? 0 : ends[position - 1]! + 2;
    entries[at] = fingerprintOf(hash);
    entries[at + 1] = offset;
    entries[at + 2] = ends[position]! - offset;
    entries[at + 3] = position;
  }
  const line = Buffer.alloc(OPENING.length + buckets * BUCKET_STRIDE - 1 + CLOSING.length);
  line.write(OPENING, 0, 'latin1');
  for (let bucket = 0; bucket < buckets; bucket++) {
    // A slice of buckets holds as many entries as a slice of nodes.
    if (bucket > 0 && bucket % Math.ceil(slice / SLOTS_PER_BUCKET) === 0) yield;
    const start = OPENING.length + bucket * BUCKET_STRIDE;
    line[start] = QUOTE;
    let at = start + 1 + CRC_CHARS;
    for (let slot = 0; slot < SLOTS_PER_BUCKET; slot++) {
      const entry = (bucket * SLOTS_PER_BUCKET + slot) * 4;
      at = writeHex(line, at, entries[entry]!, 4);
      at = writeHex(line, at, entries[entry + 1]!, 8);
      at = writeHex(line, at, entries[entry + 2]!, 8);
      at = writeHex(line, at, entries[entry + 3]!, 6);
    }
    writeHex(line, start + 1, crc32(line.subarray(start + 1 + CRC_CHARS, at), bucketSeed(bucket, buckets, nodeBytes)), CRC_CHARS);
    line[at] = QUOTE;
    line[at + 1] = bucket === buckets - 1 ? CLOSING.charCodeAt(0) : COMMA;
  }
  line.write(CLOSING.slice(1), line.length - 2, 'latin1');
  return { layout: { format: SLOT_TABLE_FORMAT, buckets, node_bytes: nodeBytes, nodes: ids.length }, line };
}

function bucketsFor(nodes: number): number {
  return Math.max(1, Math.ceil(nodes / FILLED_PER_BUCKET));
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

function writeHex(target: Buffer, at: number, value: number, digits: number): number {
  for (let digit = digits - 1; digit >= 0; digit--) {
    target[at + digit] = HEX[value & 0xf]!;
    value >>>= 4;
  }
  return at + digits;
}

/**
 * The hex field of `digits` digits at `at` of an entry's text (checked hex already). Parsed by
 * the engine, not digit by digit in a loop: such a loop got hot enough in one command for V8 to
 * compile it with TurboFan (about 1.2 ms of CPU on a background thread, in an `accept` reading six
 * nodes' slots).
 */
function hexField(text: string, at: number, digits: number): number {
  return parseInt(text.slice(at, at + digits), 16);
}

/** The byte length of the line of a table of `buckets` buckets, newline included. */
export function slotsLineBytes(buckets: number): number {
  return OPENING.length + buckets * BUCKET_STRIDE - 1 + CLOSING.length;
}

/** The table's layout as line 2 gives it, or null when it is not one this release reads. */
export function slotLayoutOf(value: unknown, lineBytes: unknown, nodeBytes: number): SlotLayout | null {
  const layout = value as Partial<SlotLayout> | undefined;
  if (typeof layout !== 'object' || layout === null || layout.format !== SLOT_TABLE_FORMAT) return null;
  const { buckets, node_bytes, nodes } = layout;
  if (!Number.isSafeInteger(nodes) || nodes! < 0 || nodes! >= NODES_LIMIT || buckets !== bucketsFor(nodes!) || node_bytes !== nodeBytes || nodeBytes >= LIMIT) return null;
  return lineBytes === slotsLineBytes(buckets!) ? { format: SLOT_TABLE_FORMAT, buckets: buckets!, node_bytes: nodeBytes, nodes: nodes! } : null;
}

/** Entries whose fingerprint matches, or DAMAGED when a bucket read does not check out. */
export const DAMAGED = Symbol('damaged slot table');

/**
 * A checkpoint's slot table, read a few buckets at a time. `read` gives the file's bytes;
 * `lineStart` is where the table's line starts.
 */
export class SlotTable {
  constructor(
    private readonly read: (start: number, end: number) => Buffer,
    private readonly lineStart: number,
    private readonly layout: SlotLayout,
  ) {}

  /** How many nodes the file has, as the table was written for. */
  get nodes(): number {
    return this.layout.nodes;
  }

  /**
   * The entries that may be node `id`'s, in table order (usually one; none when the table has no
   * such node), or DAMAGED when a bucket it read fails its check or an entry lies outside the node
   * section: the caller then reads the id list.
   */
  candidates(id: NodeId): SlotHit[] | typeof DAMAGED {
    const { buckets } = this.layout;
    const hash = hashOf(id);
    const fingerprint = fingerprintOf(hash).toString(16).padStart(4, '0');
    const found: SlotHit[] = [];
    let bucket = hash % buckets;
    for (let probed = 0; probed < buckets; ) {
      const count = Math.min(READ_AHEAD, buckets - bucket, buckets - probed);
      const start = this.lineStart + OPENING.length + bucket * BUCKET_STRIDE;
      const bytes = this.read(start, start + count * BUCKET_STRIDE - 1);
      if (bytes.length !== count * BUCKET_STRIDE - 1) return DAMAGED;
      for (let read = 0; read < count; read++, probed++) {
        const full = this.scan(bytes, read * BUCKET_STRIDE, bucket + read, fingerprint, found);
        if (full === DAMAGED) return DAMAGED;
        if (!full) return found;
      }
      bucket = (bucket + count) % buckets;
    }
    return found;
  }

  /**
   * Checks one bucket and adds its matching entries to `found`: whether it is full (the lookup goes
   * on), or DAMAGED. The bucket's CRC-32 is checked; then only the entries that hold the id's
   * fingerprint, found by a search of the bucket's text, are read (their digits checked, their
   * offset and position within the file), and whether it is full by its last entry's length. So a
   * command looking up a hundred nodes (those a ledger tail changed) runs a few native calls a
   * bucket, where parsing every field of every entry and testing the bucket's digits against a
   * pattern ran in V8's interpreter until V8 compiled the loop with TurboFan (BENCHMARKS.md,
   * "`status --limit 20` after a ledger tail", ninth pass). A hit is checked against the node's
   * line by the caller, as before.
   */
  private scan(bytes: Buffer, at: number, bucket: number, fingerprint: string, found: SlotHit[]): boolean | typeof DAMAGED {
    const { buckets, node_bytes: nodeBytes, nodes } = this.layout;
    if (bytes[at] !== QUOTE || bytes[at + BUCKET_CHARS + 1] !== QUOTE) return DAMAGED;
    const text = bytes.toString('latin1', at + 1, at + 1 + BUCKET_CHARS);
    const crc = crc32(bytes.subarray(at + 1 + CRC_CHARS, at + 1 + BUCKET_CHARS), bucketSeed(bucket, buckets, nodeBytes));
    if (!text.startsWith(eightHexDigits(crc))) return DAMAGED;
    for (let hit = text.indexOf(fingerprint, CRC_CHARS); hit >= 0; hit = text.indexOf(fingerprint, hit + 1)) {
      if ((hit - CRC_CHARS) % ENTRY_CHARS !== 0) continue;
      const entry = text.slice(hit, hit + ENTRY_CHARS);
      if (!ENTRY_TEXT.test(entry)) return DAMAGED;
      const length = hexField(entry, 12, 8);
      // An empty entry (all zeros: the fingerprint 0000) ends the bucket's entries.
      if (length === 0) return false;
      const offset = hexField(entry, 4, 8);
      const position = hexField(entry, 20, 6);
      if (offset + length >= nodeBytes || position >= nodes) return DAMAGED;
      found.push({ offset, length, position });
    }
    // Entries fill a bucket from its first: it is full when its last one is.
    return !text.startsWith(NO_LENGTH, LAST_LENGTH_AT);
  }
}

/** An entry's text: lower-case hex digits, and nothing else. */
const ENTRY_TEXT = new RegExp(`^[0-9a-f]{${ENTRY_CHARS}}$`);

/** An entry's length as written when the entry is empty (a node's entry is never empty), and where the bucket's last entry has it. */
const NO_LENGTH = '0'.repeat(8);
const LAST_LENGTH_AT = CRC_CHARS + (SLOTS_PER_BUCKET - 1) * ENTRY_CHARS + 12;
