/**
 * The checkpoint's `knowledge_trigram_rows` section (docs/storage.md): for each entry of the
 * knowledge section, in its order, a fixed-width bit set (a filter) of the three-character runs of
 * its node's line as written (`"id":{...}`), lowercased, stored by bit: one row per bit, holding
 * that bit of every filter. `search` rules a knowledge item out without reading its line when a
 * piece of its query has a run whose bit is clear: its line, lowercased, cannot hold that piece, so
 * it cannot match (domain/search.ts). It reads only the rows of its query's runs (a few KB) and the
 * section entries of the items they let through: at 50k nodes a one-match search reads neither the
 * 0.8 MB knowledge section nor the 1.7 MB of filters, nor 5,000 knowledge lines (issue 28).
 *
 * A run counts when its three UTF-16 code units are printable ASCII other than a space (0x21 to
 * 0x7e): every piece a search looks for is made of those. Each run sets one bit of FILTER_BITS;
 * the rows store six filters to a character of the base64url alphabet (no character JSON escapes),
 * so the section is one JSON string. A line holding an escape that stores a printable character
 * otherwise (`\u0041`: never written by taskdag) gets every bit set, since its text is not what its
 * value holds.
 *
 * The section is read only beside heads of this release's STATUS_RULES_VERSION (the heads line is
 * used whole or not at all): a change to which bit a run sets (the hash, the width, the runs that
 * count) bumps it, or a file saved before would rule out lines that hold the query, and `search`
 * would miss them. test/adapters/knowledge-trigrams.spec.ts pins a filter to the version. (The
 * filters one after the other, `knowledge_trigrams`, as main wrote them before, are not read: a
 * file with them alone reads every knowledge line until its next rewrite.)
 */
import { crc32, crc32OfWords } from './crc32.js';
import { eightHexDigits, ofEightHexDigits } from './hex-digits.js';
import { knowledgeHeadsOf, type KnowledgeRecord } from './head-columns.js';

// Not exported: a module's exported constant is read through its exports object at every use.
const FILTER_CHARS = 340;
const BITS_PER_CHAR = 6;
const FILTER_BITS = FILTER_CHARS * BITS_PER_CHAR;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Each alphabet character's value by its code, -1 for any other. */
// Every byte's value (-1, all bits set, outside the alphabet: such a filter character rules nothing out).
const VALUE = new Int8Array(256).fill(-1);
for (let at = 0; at < ALPHABET.length; at++) VALUE[ALPHABET.charCodeAt(at)] = at;

const FIRST = 0x21;
const LAST = 0x7e;
const printable = (code: number) => code >= FIRST && code <= LAST;

/** The bit of a run of three printable code units (the hash's top 12 bits, folded onto the filter). */
function bitOf(a: number, b: number, c: number): number {
  return (Math.imul((a << 16) | (b << 8) | c, 0x9e3779b1) >>> 20) % FILTER_BITS;
}

/** An escape that stores a printable character otherwise than as itself (as domain/search.ts judges a stored text). */
const OPAQUE_ESCAPE = /\\[^nrtbf"\\]/;
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');

/** The filter of a node line as written (`"id":{...}`): FILTER_CHARS sextets, each six of its bits. */
export function trigramFilter(entry: Buffer): Uint8Array {
  const sextets = new Uint8Array(FILTER_CHARS);
  if (entry.includes(0x5c) && OPAQUE_ESCAPE.test(entry.toString('utf8'))) return sextets.fill(63);
  // A line of ASCII (as taskdag writes nearly every one) is lowercased byte by byte; any other as a string, as search lowercases it.
  if (!asciiRuns(sextets, entry)) textRuns(sextets, entry.toString('utf8').toLowerCase());
  return sextets;
}

function setBit(sextets: Uint8Array, a: number, b: number, c: number): void {
  const bit = bitOf(a, b, c);
  sextets[(bit / BITS_PER_CHAR) | 0]! |= 1 << bit % BITS_PER_CHAR;
}

/** Sets the runs of `bytes` lowercased, when they are all ASCII: false (nothing set) otherwise. */
function asciiRuns(sextets: Uint8Array, bytes: Buffer): boolean {
  for (let at = 0; at < bytes.length; at++) if (bytes[at]! >= 0x80) return false;
  let a = 0;
  let b = 0;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at]!;
    const c = byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
    if (c >= FIRST && c <= LAST && a >= FIRST && a <= LAST && b >= FIRST && b <= LAST) setBit(sextets, a, b, c);
    a = b;
    b = c;
  }
  return true;
}

/** Sets the runs of a lowercased text. */
function textRuns(sextets: Uint8Array, lower: string): void {
  for (let at = 2; at < lower.length; at++) {
    const [a, b, c] = [lower.charCodeAt(at - 2), lower.charCodeAt(at - 1), lower.charCodeAt(at)];
    if (printable(a) && printable(b) && printable(c)) setBit(sextets, a, b, c);
  }
}

/**
 * The section of these filters (one per entry of `knowledge`, the knowledge section as written, in
 * its order), stored by bit, so that a query reads the rows of its own runs' bits and no other:
 *
 *   "<count><row 0>...<row FILTER_BITS - 1><entry 0>...<entry count - 1>"
 *
 * `count` (8 hex digits) is how many entries; row `bit` is its CRC-32 (8 hex digits, seeded with
 * the row's number and the count) and then the filters' bit `bit`, six filters a character of the
 * base64url alphabet (filter `n` in bit `n % 6` of character `n / 6`); entry `n` is where entry
 * `n` of the knowledge section is (its start, its end with the comma or bracket after it, from the
 * section's start) and the CRC-32 of those bytes (seeded as a row, with the row count added), 8
 * hex digits each: a reader parses the entries a query's rows let through, each checked, without
 * reading or checking the 0.8 MB knowledge section (at 50k nodes) it is in.
 */
export function trigramRowsSection(filters: readonly (Uint8Array | UnchangedLine)[], knowledge: Buffer, previous: Buffer | null = null): Buffer {
  const count = filters.length;
  const width = rowWidth(count);
  // A previous section of more entries than this one is not of these lines' order (a line was removed).
  const found = previous === null ? null : previousRows(previous);
  const kept = found && found.count <= count ? found : null;
  const copies = (filter: Uint8Array | UnchangedLine, ordinal: number): boolean => !(filter instanceof Uint8Array) && kept !== null && ordinal < kept.count;
  const pieces: Buffer[] = [Buffer.from(`"${eightHexDigits(count)}`, 'latin1')];
  if (kept && kept.count === count && filters.every(copies)) {
    // Every line as the previous section has it: its rows as they were, their checksums with them.
    pieces.push(kept.rows);
  } else {
    // Filter values (0 to 63), the previous rows' characters decoded where lines are unchanged.
    const rows = new Uint8Array(FILTER_BITS * width);
    if (kept) decodeRows(rows, width, kept, filters.some((filter, ordinal) => ordinal < kept.count && !copies(filter, ordinal)) ? filters.map(copies) : null);
    for (let ordinal = 0; ordinal < count; ordinal++) {
      const given = filters[ordinal]!;
      if (copies(given, ordinal)) continue;
      const filter = given instanceof Uint8Array ? given : (given as UnchangedLine).filter();
      const [column, mask] = [(ordinal / BITS_PER_CHAR) | 0, 1 << ordinal % BITS_PER_CHAR];
      for (let at = 0; at < FILTER_CHARS; at++) {
        const sextet = filter[at]!;
        if (sextet === 0) continue;
        for (let bit = 0; bit < BITS_PER_CHAR; bit++) if (sextet & (1 << bit)) rows[(at * BITS_PER_CHAR + bit) * width + column]! |= mask;
      }
    }
    for (let at = 0; at < rows.length; at++) rows[at] = ALPHABET_CODES[rows[at]!]!;
    for (let bit = 0; bit < FILTER_BITS; bit++) {
      const row = Buffer.from(rows.buffer, rows.byteOffset + bit * width, width);
      pieces.push(Buffer.from(eightHexDigits(crc32(row, seedOf(bit, count))), 'latin1'), row);
    }
  }
  const starts = entryStarts(knowledge);
  if (starts.length !== count) throw new Error(`knowledge section of ${starts.length} entries for ${count} filters`);
  let table = '';
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const [start, end] = [starts[ordinal]!, ordinal + 1 < count ? starts[ordinal + 1]! - 1 : knowledge.length];
    table += `${eightHexDigits(start)}${eightHexDigits(end)}${eightHexDigits(crc32(knowledge.subarray(start, end), seedOf(FILTER_BITS + ordinal, count)))}`;
  }
  pieces.push(Buffer.from(`${table}"`, 'latin1'));
  return Buffer.concat(pieces);
}

/**
 * A knowledge line a rewrite copies unchanged, at the ordinal the previous section had it: its
 * filter is that section's, unless the section cannot give it (then `filter` works it out).
 */
export interface UnchangedLine {
  filter(): Uint8Array;
}

/** The rows of a previous section (each after its checksum, as written) and its entry count; null when it is not of this shape or a row does not check. */
function previousRows(section: Buffer): { count: number; width: number; rows: Buffer } | null {
  const count = section.length >= COUNT_END ? ofEightHexDigits(section.toString('latin1', 1, COUNT_END)) : null;
  if (count === null) return null;
  const width = rowWidth(count);
  const tableStart = COUNT_END + FILTER_BITS * (ROW_CRC + width);
  if (section.length !== tableStart + TABLE_ENTRY * count + 1 || section[0] !== 0x22) return null;
  for (let bit = 0; bit < FILTER_BITS; bit++) {
    const at = COUNT_END + bit * (ROW_CRC + width);
    const row = section.subarray(at + ROW_CRC, at + ROW_CRC + width);
    if (crc32(row, seedOf(bit, count)) !== ofEightHexDigits(section.toString('latin1', at, at + ROW_CRC))) return null;
    // A row of characters outside the alphabet (not one a rewrite writes) is not copied.
    for (let column = 0; column < width; column++) if (VALUE[row[column]!]! < 0) return null;
  }
  return { count, width, rows: section.subarray(COUNT_END, tableStart) };
}

/**
 * Decodes the previous rows into `rows` (filter values, `width` characters a row): every filter of
 * the previous section, or, given `keep`, those it keeps (the others' bits left clear).
 */
function decodeRows(rows: Uint8Array, width: number, previous: { count: number; width: number; rows: Buffer }, keep: readonly boolean[] | null): void {
  const masks = new Uint8Array(previous.width).fill(63);
  if (keep) for (let ordinal = 0; ordinal < previous.count; ordinal++) if (!keep[ordinal]) masks[(ordinal / BITS_PER_CHAR) | 0]! &= ~(1 << ordinal % BITS_PER_CHAR);
  for (let bit = 0; bit < FILTER_BITS; bit++) {
    const from = bit * (ROW_CRC + previous.width) + ROW_CRC;
    const to = bit * width;
    for (let column = 0; column < previous.width; column++) rows[to + column] = VALUE[previous.rows[from + column]!]! & masks[column]!;
  }
}

/** Where each entry of a knowledge section as written starts: after its tab (head-columns.ts). */
function entryStarts(knowledge: Buffer): number[] {
  const starts: number[] = [];
  for (let at = knowledge.indexOf(TAB); at >= 0; at = knowledge.indexOf(TAB, at + 1)) starts.push(at + 1);
  return starts;
}

/**
 * The bits every line that holds each of `pieces` (lowercased) has set: one per run of three
 * printable characters of a piece. Empty when no piece is that long: the filter then rules nothing out.
 */
export function trigramBits(pieces: readonly string[]): number[] {
  const bits = new Set<number>();
  for (const piece of pieces) {
    for (let at = 0; at + 2 < piece.length; at++) {
      const [a, b, c] = [piece.charCodeAt(at), piece.charCodeAt(at + 1), piece.charCodeAt(at + 2)];
      if (printable(a) && printable(b) && printable(c)) bits.add(bitOf(a, b, c));
    }
  }
  return [...bits];
}

/** Reads bytes `start` to `end` of a section. */
export type SectionRead = (start: number, end: number) => Buffer;

/**
 * The entries of the knowledge section (read by `knowledge`, of `knowledgeSize` bytes) whose
 * filter in the rows section (read by `rows`, of `rowsSize` bytes) has every one of `bits` set,
 * parsed: at least every entry whose line as written holds the pieces the bits are of. Reads the
 * rows of `bits` alone, then each entry let through (or, when many are, the entry table and the
 * knowledge section at once), each checked against its CRC-32. Null when the sections cannot be
 * read so: a row or an entry that does not check, a section not of this shape, an entry malformed.
 */
export function knowledgeHoldingBits(rows: SectionRead, rowsSize: number, knowledge: SectionRead, knowledgeSize: number, bits: readonly number[]): KnowledgeRecord[] | null {
  const count = rowsSize >= COUNT_END ? ofEightHexDigits(rows(1, COUNT_END).toString('latin1')) : null;
  if (count === null) return null;
  const width = rowWidth(count);
  const tableStart = COUNT_END + FILTER_BITS * (ROW_CRC + width);
  if (rowsSize !== tableStart + TABLE_ENTRY * count + 1) return null;
  const found = ordinalsWithBits(rows, count, width, bits);
  if (found === null) return null;
  // Many entries: the table and the section read at once (two reads, not two a match).
  const many = found.length > SINGLE_ENTRY_READS;
  const table = many ? wholly(rows(tableStart, tableStart + TABLE_ENTRY * count), tableStart) : rows;
  const section = many ? wholly(knowledge(0, knowledgeSize), 0) : knowledge;
  const pieces: string[] = [];
  for (const ordinal of found) {
    const at = tableStart + TABLE_ENTRY * ordinal;
    const [start, end, crc] = [0, 8, 16].map((from) => ofEightHexDigits(table(at + from, at + from + 8).toString('latin1')));
    if (start === null || end === null || crc === null || start >= end || end > knowledgeSize) return null;
    const entry = section(start, end);
    if (crc32(entry, seedOf(FILTER_BITS + ordinal, count)) !== crc) return null;
    // The entry without the comma or bracket after it.
    pieces.push(entry.toString('utf8', 0, entry.length - 1));
  }
  let parsed: unknown;
  try {
    // One parse of the entries found, not one each.
    parsed = JSON.parse(`[${pieces.join(',')}]`);
  } catch {
    return null;
  }
  return Array.isArray(parsed) && parsed.length === pieces.length ? knowledgeHeadsOf(parsed) : null;
}

/** `bytes`, read from `offset` of a section, read as the section. */
function wholly(bytes: Buffer, offset: number): SectionRead {
  return (start, end) => bytes.subarray(start - offset, end - offset);
}

/**
 * The ordinals of the filters that have every one of `bits` set, from their rows (each checked);
 * null when one does not check. Stops reading rows once none is left.
 */
function ordinalsWithBits(rows: SectionRead, count: number, width: number, bits: readonly number[]): number[] | null {
  // All set: every filter lets through a query of no run of three (the caller asks for none such).
  const kept = new Uint8Array(width).fill(63);
  for (const bit of bits) {
    const at = COUNT_END + bit * (ROW_CRC + width);
    const row = rows(at, at + ROW_CRC + width);
    const body = row.subarray(ROW_CRC);
    if (crc32(body, seedOf(bit, count)) !== ofEightHexDigits(row.toString('latin1', 0, ROW_CRC))) return null;
    let left = 0;
    for (let column = 0; column < width; column++) left |= kept[column]! &= VALUE[body[column]!]!;
    if (left === 0) break;
  }
  const found: number[] = [];
  for (let column = 0; column < width; column++) {
    const sextet = kept[column]!;
    if (sextet === 0) continue;
    for (let bit = 0; bit < BITS_PER_CHAR; bit++) {
      const ordinal = column * BITS_PER_CHAR + bit;
      if (sextet & (1 << bit) && ordinal < count) found.push(ordinal);
    }
  }
  return found;
}

/** Characters of a row: one per six filters. */
function rowWidth(count: number): number {
  return Math.ceil(count / BITS_PER_CHAR);
}

/** The CRC-32 that seeds row `row`'s (entry `n`'s is row FILTER_BITS + n's): its number and the entry count. */
function seedOf(row: number, count: number): number {
  return crc32OfWords(row, count);
}

/** A match count above which the entry table and the knowledge section are read whole, not entry by entry. */
const SINGLE_ENTRY_READS = 64;
/** The opening quote and the entry count. */
const COUNT_END = 9;
const ROW_CRC = 8;
const TABLE_ENTRY = 24;
const TAB = 0x09;
