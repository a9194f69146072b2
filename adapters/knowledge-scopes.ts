/**
 * The checkpoint's `knowledge_scopes` section (docs/storage.md): the knowledge items by each value
 * their scopes name, in a hash table, so that `context` and `take` read the few items that can
 * match their node without reading the knowledge section, whose size follows the project's (840 KB
 * at 50k nodes: reading, checking and searching it was a third of a `context` whose answer holds
 * 16 items; issue 28).
 *
 * One JSON array: `["<count><table>",<bucket>,...]`. `count` (8 hex digits) is the number of
 * buckets, one per four values (at least one); the table holds 24 hex digits a bucket: where it
 * starts and how long it is (bytes from the section's start, 8 digits each) and its CRC-32 seeded
 * with its number and the bucket count (8), so that a bucket moved, cut or of another table fails
 * its check. A bucket is `[["<value>",["<id>",key,end,position,crc,lists],...],...]`: each value
 * hashed there and the knowledge items whose scope names it, with where each item's line is (`key`
 * its first byte and `end` its JSON's end, from the first node line; `position` its place among the
 * ids), as the knowledge section says, the line's CRC-32 as `line_crc32` holds it, and the lists
 * of the scope that name the value (`lists`: 1 `node_ids`, 2 `tags`, 4 `domains`, 8
 * `initiatives`), so that a reader reads only the items whose scope names a value in the list it
 * matches that value against (a tag `api` is not a domain `api`: at 50k nodes, reading those too
 * made a context of 820 items read a fifth more lines).
 *
 * A reader reads the table entries and buckets of the values it looks for and nothing else, and
 * treats the items named in the lists it asks for as candidates: it reads each item's line, checked against the CRC-32 the
 * bucket gives (or, when that differs, against `line_crc32`, which then says whether the line is
 * damaged), and matches the scope it holds. At 50k nodes a context whose answer holds 820 items
 * so checks no 400 KB `line_crc32` section. A bucket that does not check, or a section that is not
 * of this shape, answers nothing, and the reader falls back to the knowledge section. The section
 * is read only beside heads of this release's STATUS_RULES_VERSION (the heads line is used whole
 * or not at all): a change to which bucket a value falls in (the hash, the bucket count) bumps it,
 * or a file saved before would be looked up in the wrong buckets and miss items.
 * test/adapters/knowledge-scopes.spec.ts pins a section to the version.
 */
import type { KnowledgeScope, NodeId } from '../domain/model.js';
import type { NodeHead } from '../domain/status-index.js';
import { crc32, crc32OfWords } from './crc32.js';
import { eightHexDigits } from './hex-digits.js';
import type { LineSpan } from './head-columns.js';

// Not exported: a module's exported constant is read through its exports object at every use.
const VALUES_PER_BUCKET = 4;
const COUNT_DIGITS = 8;
const ENTRY_DIGITS = 24;
/** `["` before the bucket count. */
const OPENING = 2;

/** FNV-1a (32 bits) over the value's UTF-16 code units. */
function hashOf(value: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < value.length; at++) hash = Math.imul(hash ^ value.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

/** The bucket of `value` in a table of `count` buckets. */
export function bucketOf(value: string, count: number): number {
  return hashOf(value) % count;
}

/** The CRC-32 that seeds a bucket's: its number and the bucket count. */
function bucketSeed(bucket: number, buckets: number): number {
  return crc32OfWords(bucket, buckets);
}


/** Each scope list's bit in an entry's `lists`. */
const LIST_BITS: Readonly<Record<keyof KnowledgeScope, number>> = { node_ids: 1, tags: 2, domains: 4, initiatives: 8 };

/**
 * The section for `heads` (every node's, in the order of the ids; `ends` where each node's JSON
 * ends, from the first node line): the knowledge heads by the values their scopes name.
 */
export function knowledgeScopesSection(heads: readonly NodeHead[], ends: readonly number[], crcs: readonly number[]): Buffer {
  const byValue = new Map<string, unknown[]>();
  for (const [position, head] of heads.entries()) {
    // A node damaged in its file (a knowledge item without a scope, a list that is not one) names nothing.
    if (!head.scope) continue;
    const key = position === 0 ? 0 : ends[position - 1]! + 2;
    // Each value the scope names, and the lists that name it.
    const named = new Map<string, number>();
    for (const [list, bit] of Object.entries(LIST_BITS)) {
      const values: unknown = head.scope[list as keyof KnowledgeScope];
      if (Array.isArray(values)) for (const value of values) if (typeof value === 'string') named.set(value, (named.get(value) ?? 0) | bit);
    }
    for (const [value, lists] of named) {
      let entry = byValue.get(value);
      if (!entry) byValue.set(value, (entry = [value]));
      entry.push([head.id, key, ends[position]!, position, crcs[position]!, lists]);
    }
  }
  const count = Math.max(1, Math.ceil(byValue.size / VALUES_PER_BUCKET));
  const buckets: unknown[][] = Array.from({ length: count }, () => []);
  for (const [value, entry] of byValue) buckets[bucketOf(value, count)]!.push(entry);
  const bodies = buckets.map((bucket) => Buffer.from(JSON.stringify(bucket)));
  let offset = OPENING + COUNT_DIGITS + ENTRY_DIGITS * count + 1;
  let table = '';
  for (const [bucket, body] of bodies.entries()) {
    offset += 1; // the comma before it
    table += `${eightHexDigits(offset)}${eightHexDigits(body.length)}${eightHexDigits(crc32(body, bucketSeed(bucket, count)))}`;
    offset += body.length;
  }
  const pieces = [Buffer.from(`["${eightHexDigits(count)}${table}"`)];
  for (const body of bodies) pieces.push(Buffer.from(','), body);
  pieces.push(Buffer.from(']'));
  return Buffer.concat(pieces);
}

/** A knowledge item a scope value names, where its line is, and the line's CRC-32 as written. */
export interface ScopedLine {
  id: NodeId;
  line: LineSpan & { crc: number };
}

/**
 * The knowledge items whose scope names one of `target`'s values in the same list (an id of its
 * `node_ids` in `node_ids`, one of its `tags` in `tags`, ...), each once, read from section `read`
 * (bytes from the section's start) of `size` bytes: null when the section is not of this shape or
 * a bucket read does not check (the caller reads the knowledge section instead).
 */
export function scopedLines(read: (start: number, end: number) => Buffer, size: number, target: KnowledgeScope): ScopedLine[] | null {
  const tableStart = OPENING + COUNT_DIGITS;
  if (size < tableStart + 2) return null;
  const head = read(0, tableStart).toString('latin1');
  const count = /^\["[0-9a-f]{8}$/.test(head) ? parseInt(head.slice(OPENING), 16) : 0;
  const bodiesStart = tableStart + ENTRY_DIGITS * count + 1;
  if (count < 1 || bodiesStart + 1 > size) return null;
  // Each value looked for, and the lists it is matched in.
  const wanted = new Map<string, number>();
  for (const [list, bit] of Object.entries(LIST_BITS)) for (const value of target[list as keyof KnowledgeScope]) wanted.set(value, (wanted.get(value) ?? 0) | bit);
  const buckets = new Set([...wanted.keys()].map((value) => bucketOf(value, count)));
  const found = new Map<NodeId, ScopedLine['line']>();
  for (const bucket of buckets) {
    const entries = bucketEntries(read, size, bucket, count, bodiesStart);
    if (entries === null) return null;
    for (const entry of entries) {
      const lists = wanted.get(entry[0] as string);
      if (lists === undefined) continue;
      for (let at = 1; at < entry.length; at++) {
        const item = entry[at] as unknown[];
        const line = Array.isArray(item) && item.length === 6 && typeof item[0] === 'string' && Number.isInteger(item[5]) ? spanOf(item[1], item[2], item[3], item[4]) : null;
        if (line === null) return null;
        if ((item[5] as number) & lists) found.set(item[0] as NodeId, line);
      }
    }
  }
  return [...found].map(([id, line]) => ({ id, line }));
}

/** Bucket `bucket`'s entries, when its table entry and bytes check and it is of this shape; null otherwise. */
function bucketEntries(read: (start: number, end: number) => Buffer, size: number, bucket: number, count: number, bodiesStart: number): unknown[][] | null {
  const at = OPENING + COUNT_DIGITS + ENTRY_DIGITS * bucket;
  const entry = read(at, at + ENTRY_DIGITS).toString('latin1');
  if (!/^[0-9a-f]{24}$/.test(entry)) return null;
  const [start, length, crc] = [0, 8, 16].map((from) => parseInt(entry.slice(from, from + 8), 16)) as [number, number, number];
  if (start < bodiesStart || start + length >= size) return null;
  const body = read(start, start + length);
  if (crc32(body, bucketSeed(bucket, count)) !== crc) return null;
  try {
    const entries: unknown = JSON.parse(body.toString('utf8'));
    const valid = Array.isArray(entries) && entries.every((item) => Array.isArray(item) && typeof item[0] === 'string');
    return valid ? (entries as unknown[][]) : null;
  } catch {
    return null;
  }
}

function spanOf(key: unknown, end: unknown, position: unknown, crc: unknown): ScopedLine['line'] | null {
  const valid = Number.isSafeInteger(key) && Number.isSafeInteger(end) && Number.isSafeInteger(position) && (key as number) >= 0 && (key as number) < (end as number) && (position as number) >= 0;
  return valid && Number.isInteger(crc) && (crc as number) >= 0 && (crc as number) <= 0xffffffff ? { key: key as number, end: end as number, position: position as number, crc: crc as number } : null;
}
