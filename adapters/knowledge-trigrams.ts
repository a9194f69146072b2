/**
 * The checkpoint's `knowledge_trigrams` section (docs/storage.md): for each entry of the knowledge
 * section, in its order, a fixed-width bit set of the three-character runs of its node's line as
 * written (`"id":{...}`), lowercased. `search` rules a knowledge item out without reading its line
 * when a piece of its query has a run whose bit is clear: its line, lowercased, cannot hold that
 * piece, so it cannot match (domain/search.ts). At 50k nodes this spares a one-match search
 * about 5,000 reads of knowledge lines (issue 28).
 *
 * A run counts when its three UTF-16 code units are printable ASCII other than a space (0x21 to
 * 0x7e): every piece a search looks for is made of those. Each run sets one bit of FILTER_BITS,
 * stored six to a character of the base64url alphabet (no character JSON escapes), so the section
 * is one JSON string of FILTER_CHARS characters per entry. A line holding an escape that stores a
 * printable character otherwise (`\u0041`: never written by taskdag) gets every bit set, since
 * its text is not what its value holds.
 *
 * The section is read only beside heads of this release's STATUS_RULES_VERSION (the heads line is
 * used whole or not at all): a change to which bit a run sets (the hash, the width, the runs that
 * count) bumps it, or a file saved before would rule out lines that hold the query, and `search`
 * would miss them. test/adapters/knowledge-trigrams.spec.ts pins a filter to the version.
 */
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

/** The filter of a node line as written (`"id":{...}`): FILTER_CHARS characters. */
export function trigramFilter(entry: Buffer): string {
  const sextets = new Uint8Array(FILTER_CHARS);
  if (entry.includes(0x5c) && OPAQUE_ESCAPE.test(entry.toString('utf8'))) return ALPHABET[63]!.repeat(FILTER_CHARS);
  // A line of ASCII (as taskdag writes nearly every one) is lowercased byte by byte; any other as a string, as search lowercases it.
  if (!asciiRuns(sextets, entry)) textRuns(sextets, entry.toString('utf8').toLowerCase());
  const filter = Buffer.allocUnsafe(FILTER_CHARS);
  for (let at = 0; at < FILTER_CHARS; at++) filter[at] = ALPHABET_CODES[sextets[at]!]!;
  return filter.toString('latin1');
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

/** The section of these filters, in the knowledge section's order. */
export function trigramSection(filters: readonly string[]): Buffer {
  return Buffer.from(`"${filters.join('')}"`, 'latin1');
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

/**
 * The entries of knowledge section `knowledge` whose filter in `trigrams` (the sections' bytes,
 * their checksums checked by the caller) has every one of `bits` set, parsed: at least every entry
 * whose line as written holds the pieces the bits are of. Null when the sections cannot be read so:
 * entries not each after a tab (head-columns.ts), a filter section that is not one filter per
 * entry, or an entry found malformed.
 */
export function knowledgeHoldingBits(knowledge: Buffer, trigrams: Buffer, bits: readonly number[]): KnowledgeRecord[] | null {
  const count = (trigrams.length - 2) / FILTER_CHARS;
  if (!Number.isInteger(count) || trigrams[0] !== QUOTE || trigrams[trigrams.length - 1] !== QUOTE) return null;
  if (knowledge.length < 2 || knowledge[0] !== OPEN || knowledge[knowledge.length - 1] !== CLOSE || (knowledge.length > 2 && knowledge[1] !== TAB)) return null;
  // JSON writes no raw tab inside a string: the section split at its tabs is `[` and then each
  // entry with the comma after it (the last with the closing bracket), split natively at once.
  const entries = knowledge.length > 2 ? knowledge.toString('utf8').split('\t') : ['[]'];
  if (entries.length !== count + 1) return null;
  const found = entriesWithBits(trigrams, count, bits);
  const pieces = found.map((ordinal) => entries[ordinal + 1]!.slice(0, -1));
  let parsed: unknown;
  try {
    // One parse of the entries found, not one each.
    parsed = JSON.parse(`[${pieces.join(',')}]`);
  } catch {
    return null;
  }
  return Array.isArray(parsed) && parsed.length === pieces.length ? knowledgeHeadsOf(parsed) : null;
}

/**
 * The ordinals of the filters of `trigrams` (`count` of them) that have every one of `bits` set (a
 * character outside the alphabet says nothing: set): every filter tested for the first bit in a
 * loop of a few steps that calls no function, then those that have it for the others, likewise.
 * The loop that called a function per filter, and found each entry's tab, cost a one-match search
 * at 10k nodes 12 M instructions more (callgrind); a function called per filter or per bit is
 * compiled by TurboFan at 50k nodes (5,076 filters), 1-2 ms of CPU each.
 */
function entriesWithBits(trigrams: Buffer, count: number, bits: readonly number[]): number[] {
  // The last run first: a query's last runs (`538` of `K-02538`) are rarer than its first (`k-0`), so fewer filters are left for the others.
  if (bits.length === 0) return Array.from({ length: count }, (_, ordinal) => ordinal);
  const [first, ...others] = [...bits].reverse() as [number, ...number[]];
  const mask = 1 << first % BITS_PER_CHAR;
  const found: number[] = [];
  for (let ordinal = 0, at = 1 + ((first / BITS_PER_CHAR) | 0); ordinal < count; ordinal++, at += FILTER_CHARS) if ((VALUE[trigrams[at]!]! & mask) !== 0) found.push(ordinal);
  if (others.length === 0) return found;
  const kept: number[] = [];
  for (let index = 0; index < found.length; index++) {
    const start = 1 + found[index]! * FILTER_CHARS;
    let holds = true;
    for (let other = 0; holds && other < others.length; other++) holds = (VALUE[trigrams[start + ((others[other]! / BITS_PER_CHAR) | 0)]!]! & (1 << others[other]! % BITS_PER_CHAR)) !== 0;
    if (holds) kept.push(found[index]!);
  }
  return kept;
}

const QUOTE = 0x22;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const TAB = 0x09;

