import { crc32, intactRecordLengths } from './crc32.js';
import { eightHexDigits } from './hex-digits.js';
import { applyChangeSet, type ChangeSet } from '../domain/change-set.js';
import { DomainError } from '../domain/errors.js';
import type { Graph, LogEntry, NodeId } from '../domain/model.js';
import { isRememberedRequest } from '../domain/request-window.js';
import { CRC_AT, CRC_DIGITS, LENGTH_AT, LENGTH_DIGITS, RECORD_PREFIX, RECORD_SUFFIX } from './record-prefix.js';
import { invalidFile } from './storage-error.js';

/**
 * One ledger record per line, itself a JSON object so that `jq .change ledger.N.jsonl` works:
 * `{"crc32":"<8 hex>","bytes":"<10 digits>","change":<change set JSON>}` and a newline. The
 * prefix has a fixed width; `bytes` is the length of the change set's JSON and `crc32` its
 * checksum, so a record proves itself complete and intact whatever the bytes around it.
 */
const PREFIX_TEMPLATE = Buffer.from(RECORD_PREFIX);
const PREFIX_BYTES = PREFIX_TEMPLATE.length;
const SUFFIX = Buffer.from(RECORD_SUFFIX);
/** The bytes every record starts with, before its checksum: where a search for the next record looks. */
const START = PREFIX_TEMPLATE.subarray(0, CRC_AT);

/** The record of `changes`, with the checkpoint positions its writer knew of its nodes when given (CheckpointPositions, last). */
export function encodeRecord(changes: ChangeSet & { checkpoint_positions?: CheckpointPositions }): Buffer {
  const body = Buffer.from(changeSetJson(changes));
  const prefix = `{"crc32":"${eightHexDigits(crc32(body))}","bytes":"${String(body.length).padStart(10, '0')}","change":`;
  return Buffer.concat([Buffer.from(prefix), body, SUFFIX]);
}

/**
 * The change set's JSON as JSON.stringify writes it, but for its log: each entry after a tab, and
 * a tab before the closing bracket (`"log":[\t{...},\t{...}\t]`). JSON allows a tab between
 * values and never holds a raw one inside a string, and no other member gets one, so a reader
 * finds each entry's bytes between two tabs without parsing the record (`entriesNaming`).
 */
function changeSetJson(changes: ChangeSet): string {
  const members: string[] = [];
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const json = key === 'log' && Array.isArray(value) ? `[${value.map((entry) => `\t${JSON.stringify(entry)}`).join(',')}\t]` : JSON.stringify(value);
    members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * What a record may carry beside its change set: where the nodes it changes are in the checkpoint
 * the process that appended it read, as that process knew them without looking anything up. `of`
 * is that file's identity (checkpoint-file.ts, `checkpointIdentity`); `at` lists each node's id
 * followed by its position among the file's ids, in one flat list (an object keyed by the ids
 * would make every record's parse build a shape of its own). A load replaying the record over
 * that same file takes them (lazy-nodes.ts, `notePositions`) rather than looking each changed node
 * up in the slot table again; over any other file it ignores them. An earlier release ignores the
 * member, as it ignores any member of a change set it does not know.
 */
export interface CheckpointPositions {
  of: string;
  at: (NodeId | number)[];
}

/**
 * The list of ids and positions record `changes` keeps (`checkpoint_positions`) for the checkpoint
 * `of` names, as stored (its pairs are checked as they are taken, lazy-nodes.ts `notePositions`);
 * null when it keeps none, or keeps them for another checkpoint. Nothing else is looked at first:
 * every point command replays a tail of such records.
 */
export function keptPositions(changes: ChangeSet, of: string): readonly unknown[] | null {
  const kept = (changes as { checkpoint_positions?: Partial<CheckpointPositions> | null }).checkpoint_positions;
  return typeof kept === 'object' && kept !== null && kept.of === of && Array.isArray(kept.at) ? kept.at : null;
}

/**
 * What the first record of a ledger generation carries beside its change set: the generation's
 * fence generation (so it survives the checkpoint's loss), and `starts_empty` when the state was
 * written whole with an empty graph (`init`): replaying the generation from its first record then
 * gives the whole state, with no checkpoint (what a corrupt-recovery restore does).
 */
export interface GenerationStart {
  fence_generation: number;
  starts_empty?: true;
}

export interface LedgerRead {
  records: ChangeSet[];
  /** Where the valid records end (relative to the bytes read); anything after is a torn write. */
  end: number;
}

/**
 * Parses ledger bytes from a record boundary. An invalid record with no valid record after it is
 * the torn write of a crash (the caller ignores it and the next writer cuts it); an invalid record
 * followed by a valid one is damage in the middle: STORAGE_ERROR with its byte position, and
 * nothing is cut. Only records are read: a line without the record prefix (as pre-0.1 development
 * builds wrote) is invalid like any other damage.
 */
export function readRecords(bytes: Buffer, file: string, base = 0): LedgerRead {
  const spans = intactRecordSpans(bytes);
  const records: ChangeSet[] = [];
  for (const span of spans) records.push(asChangeSet(parseJson(bytes, span.bodyStart, span.bodyEnd), file, base + span.start));
  return { records, end: intactEnd(bytes, spans, file, base) };
}

/**
 * Where the intact records `spans` end, the start of `bytes` being a record boundary: the end of
 * `bytes`, or the start of an invalid record with no valid record after it (a torn write, which
 * the caller ignores). An invalid record with a valid one after it is damage: STORAGE_ERROR; so is
 * an invalid last record that is whole (`isWholeRecord`), which may be a commit already reported.
 */
function intactEnd(bytes: Buffer, spans: readonly RecordSpan[], file: string, base: number): number {
  const end = spans.length > 0 ? spans[spans.length - 1]!.end : 0;
  if (end < bytes.length) {
    const next = nextValidRecord(bytes, end + 1);
    if (next !== null) throw damagedAt(file, base + end, base + next);
    if (isWholeRecord(bytes.subarray(end))) throw damagedLast(file, base + end);
  }
  return end;
}

/**
 * Whether the bytes after the last intact record (`tail`) were all written, so that they are a
 * record damaged since (a flipped bit, a hand edit), not the torn append of a crash. An append is
 * one record whose only newline is its last byte, and a crash leaves a prefix of it, then zeros
 * (where a power loss left the file grown but pages of it unwritten) or nothing; taskdag never
 * writes a zero byte (JSON escapes U+0000). Bytes without a zero that end with a newline, or are as
 * long as their record prefix says, are none of those: cutting them off, as a torn write is cut,
 * would drop a commit whose command may have reported success.
 */
function isWholeRecord(tail: Buffer): boolean {
  if (tail.includes(0)) return false;
  if (tail[tail.length - 1] === SUFFIX[1]) return true;
  const length = holdsPrefixText(tail, 0) ? prefixNumber(tail, LENGTH_AT, LENGTH_DIGITS, 10) : null;
  return length !== null && tail.length === PREFIX_BYTES + length + SUFFIX.length;
}

/**
 * The log entries of the records in `bytes` (read as `readRecords` reads them: each record's
 * checksum checked, damage in the middle an error, a torn end ignored) that may name node `id`:
 * at least every entry whose `node` is `id` or whose text holds it, in log order. A record whose
 * bytes do not hold `id` is not parsed; in one whose log is written an entry after a tab
 * (`encodeRecord`), only the entries holding it are parsed. A record that holds an escape of a
 * printable character is parsed whole: a hand edit could write an id's character so (`\u0054`),
 * which a byte search for the id would miss (JSON.stringify escapes only control characters so). At 50k nodes
 * and a 200k-entry log this is a byte search of the ledger, not a parse of 21 MB (issue 28).
 */
export function entriesNaming(bytes: Buffer, file: string, id: NodeId, base = 0): { entries: LogEntry[]; end: number } {
  const needle = Buffer.from(id);
  const spans = intactRecordSpans(bytes);
  const entries: LogEntry[] = [];
  for (const span of spans) {
    const body = bytes.subarray(span.bodyStart, span.bodyEnd);
    const hit = body.indexOf(needle);
    const escaped = holdsEscapedPrintable(body);
    if (hit >= 0 || escaped) {
      const found = escaped ? null : entriesAt(body, needle, hit);
      for (const entry of found ?? asChangeSet(parseJson(body), file, base + span.start).log) entries.push(entry);
    }
  }
  return { entries, end: intactEnd(bytes, spans, file, base) };
}

/** An escape of an ASCII character (`\u0054` for `T`): a byte search for an id would miss it. */
const ESCAPED_ASCII = Buffer.from('\\u00');

/**
 * Whether `body` holds an escape of a printable ASCII character (`\u0020` to `\u007f`), as an id's
 * characters would be written by hand: JSON.stringify writes none (only control characters are
 * escaped so), so a record with a control character in a note is still read entry by entry.
 */
export function holdsEscapedPrintable(body: Buffer): boolean {
  for (let at = body.indexOf(ESCAPED_ASCII); at >= 0; at = body.indexOf(ESCAPED_ASCII, at + 1)) {
    const digit = body[at + ESCAPED_ASCII.length];
    if (digit !== undefined && digit >= 0x32 && digit <= 0x37) return true;
  }
  return false;
}
const TAB = 0x09;
const LOG_START = Buffer.from('"log":[\t');

/**
 * The entries of a record's change set (`body`) that hold `needle` (first at `hit`), each parsed
 * from between its tabs; null when the log is not written so, or an entry does not parse as one.
 */
function entriesAt(body: Buffer, needle: Buffer, hit: number): LogEntry[] | null {
  // Only the log holds tabs, and it has the first: any before `"log":[` would be another member's.
  const first = body.indexOf(TAB);
  if (first < 0 || first !== body.indexOf(LOG_START) + LOG_START.length - 1) return null;
  const last = body.lastIndexOf(TAB);
  const entries: LogEntry[] = [];
  for (let at = hit; at >= 0; ) {
    if (at > first && at < last) {
      const start = body.lastIndexOf(TAB, at) + 1;
      const end = body.indexOf(TAB, at);
      // The entry, without the comma after it (the last has none).
      const entry = parseJson(body.subarray(start, body[end - 1] === 0x2c && end - 1 > start ? end - 1 : end));
      if (!isLogEntry(entry)) return null;
      entries.push(entry);
      at = body.indexOf(needle, end);
    } else at = body.indexOf(needle, at + 1);
  }
  return entries;
}

/**
 * The entries of a run of whole log entries cut from one record's log (`run`: from the first byte
 * of an entry, after its tab, to the tab after the last, exclusive) that hold `id`, each parsed from
 * between its tabs; every entry of the run when it holds an escape of a printable character (see
 * entriesNaming). Null when an entry does not parse as one.
 */
export function entriesOfRun(run: Buffer, id: NodeId): LogEntry[] | null {
  const needle = Buffer.from(id);
  const every = holdsEscapedPrintable(run);
  const entries: LogEntry[] = [];
  for (let at = every ? 0 : run.indexOf(needle); at >= 0 && at < run.length; ) {
    const start = run.lastIndexOf(TAB, at) + 1;
    const tab = run.indexOf(TAB, at);
    const end = tab < 0 ? run.length : tab;
    // The entry, without the comma after it (the last of the log has none).
    const entry = parseJson(run.subarray(start, run[end - 1] === 0x2c && end - 1 > start ? end - 1 : end));
    if (!isLogEntry(entry)) return null;
    entries.push(entry);
    if (tab < 0) break;
    at = every ? tab + 1 : run.indexOf(needle, tab);
  }
  return entries;
}

/** An intact record: where it starts, where its change set's JSON starts and ends, and where the record ends (after its newline). */
export interface RecordSpan {
  start: number;
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

/**
 * The intact records from the start of `bytes` (each checksum checked, none parsed), up to the first
 * that is not (a torn append, or damage that every reader of the whole ledger reports). Checked by
 * the CRC-32 module in one call, whose lengths say where each record is; one by one here without
 * WebAssembly, or for bytes a process checks with zlib (crc32.ts). Checked one by one in
 * JavaScript, the prefix's fixed bytes alone were a loop of 50 steps a record, which V8 compiled
 * with TurboFan past some 60 records (issue 28).
 */
export function intactRecordSpans(bytes: Buffer): RecordSpan[] {
  const lengths = intactRecordLengths(bytes);
  const spans: RecordSpan[] = [];
  if (lengths === null) {
    for (let at = 0; at < bytes.length; ) {
      const record = recordAt(bytes, at, false);
      if (record === null) break;
      spans.push({ start: at, bodyStart: record.bodyStart, bodyEnd: record.end - SUFFIX.length, end: record.end });
      at = record.end;
    }
    return spans;
  }
  let at = 0;
  for (const length of lengths) {
    const bodyStart = at + PREFIX_BYTES;
    spans.push({ start: at, bodyStart, bodyEnd: bodyStart + length, end: bodyStart + length + SUFFIX.length });
    at = bodyStart + length + SUFFIX.length;
  }
  return spans;
}

/**
 * Where a record's log entries are in its change set's JSON (`body`), when written an entry after
 * a tab (encodeRecord): from its first tab to its last (the one before the closing bracket); null
 * when the log is not written so (an earlier build's record).
 */
export function logTabs(body: Buffer): { first: number; last: number } | null {
  const first = body.indexOf(TAB);
  if (first < 0 || first !== body.indexOf(LOG_START) + LOG_START.length - 1) return null;
  return { first, last: body.lastIndexOf(TAB) };
}

function isLogEntry(value: unknown): value is LogEntry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A ledger read from its start up to the first record that does not verify (invalid, not a change
 * set, or not past the revision before it), whatever follows: what can be replayed of a damaged
 * ledger. The first record is given as written, with what it carries as a generation's start.
 */
export function intactPrefix(bytes: Buffer): { start: Partial<GenerationStart> | null; records: ChangeSet[] } {
  const records: ChangeSet[] = [];
  let start: Partial<GenerationStart> | null = null;
  for (let at = 0; at < bytes.length; ) {
    const record = recordAt(bytes, at);
    const changes = record === null ? null : changeSetOf(record.value);
    if (record === null || changes === null) break;
    if (records.length > 0 && changes.revision <= records[records.length - 1]!.revision) break;
    if (records.length === 0) start = record.value as Partial<GenerationStart>;
    records.push(changes);
    at = record.end;
  }
  return { start, records };
}

/**
 * The highest revision and fence generation of any intact record in `bytes` (the first record of
 * a generation carries its fence generation), skipping damage wherever it is: for a ledger that
 * no longer loads, what a replacement must move past. 0 when there is none.
 */
export function highestReached(bytes: Buffer): { revision: number; fence_generation: number } {
  const highest = { revision: 0, fence_generation: 0 };
  for (let at: number | null = 0; at !== null && at < bytes.length; ) {
    const record = recordAt(bytes, at);
    if (record === null) {
      at = nextValidRecord(bytes, at + 1);
      continue;
    }
    const value = (record.value ?? {}) as Record<string, unknown>;
    for (const field of ['revision', 'fence_generation'] as const) {
      if (Number.isSafeInteger(value[field])) highest[field] = Math.max(highest[field], value[field] as number);
    }
    at = record.end;
  }
  return highest;
}

/**
 * Applies committed change sets to `graph` in order: how every store loads its state past a
 * checkpoint and how a process catches up with commits (the file store's ledger tail, the
 * PostgreSQL store's change set rows). A change set that does not move past the graph's revision
 * is damage at `where`.
 */
export function replayChangeSets(graph: Graph, records: Iterable<ChangeSet>, where: string): void {
  for (const changes of records) {
    if (changes.revision <= graph.revision) throw invalidFile(where, `revision ${changes.revision} is out of order`);
    applyChangeSet(graph, changes);
  }
}

/** The record starting at `offset` and where it ends (its body parsed, with `parse`), or null when none is complete and intact there. */
function recordAt(bytes: Buffer, offset: number, parse = true): { value: unknown; end: number; bodyStart: number } | null {
  if (!holdsPrefixText(bytes, offset)) return null;
  const checksum = prefixNumber(bytes, offset + CRC_AT, CRC_DIGITS, 16);
  const length = prefixNumber(bytes, offset + LENGTH_AT, LENGTH_DIGITS, 10);
  if (checksum === null || length === null) return null;
  const bodyStart = offset + PREFIX_BYTES;
  const bodyEnd = bodyStart + length;
  if (bodyEnd + SUFFIX.length > bytes.length || bytes[bodyEnd] !== SUFFIX[0] || bytes[bodyEnd + 1] !== SUFFIX[1]) return null;
  const body = bytes.subarray(bodyStart, bodyEnd);
  if (crc32(body) !== checksum) return null;
  return { value: parse ? parseJson(body) : undefined, end: bodyEnd + SUFFIX.length, bodyStart };
}

/**
 * Whether the record prefix at `offset` has the template's bytes outside its two numbers. Read
 * byte by byte, as the numbers are (prefixNumber): a regular expression over a string of the
 * prefix made every replayed record a string, a match and an array, and V8 compiled the
 * expression in every command that read a tail (issue 28).
 */
function holdsPrefixText(bytes: Buffer, offset: number): boolean {
  if (offset + PREFIX_BYTES > bytes.length) return false;
  for (let at = 0; at < PREFIX_BYTES; at++) {
    const inNumber = (at >= CRC_AT && at < CRC_AT + CRC_DIGITS) || (at >= LENGTH_AT && at < LENGTH_AT + LENGTH_DIGITS);
    if (!inNumber && bytes[offset + at] !== PREFIX_TEMPLATE[at]) return false;
  }
  return true;
}

/**
 * The number written at `at` (inside a prefix holdsPrefixText checked) as `digits` digits of `radix`
 * (16: lowercase hex, as eightHexDigits writes a CRC-32; 10: decimal); null when any is not such a digit.
 */
function prefixNumber(bytes: Buffer, at: number, digits: number, radix: 10 | 16): number | null {
  let value = 0;
  for (let index = at; index < at + digits; index++) {
    const byte = bytes[index]!;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : radix === 16 && byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
    if (digit < 0) return null;
    value = value * radix + digit;
  }
  return value;
}

/** An invalid record at `offset` with a valid one after it, at `next`. */
function damagedAt(file: string, offset: number, next: number): DomainError {
  return new DomainError('STORAGE_ERROR', `${file} is damaged: the ledger record at byte ${offset} is invalid, and valid records follow it at byte ${next}`, {
    cause: 'EINVALID',
    path: file,
    offset,
    next_valid_offset: next,
  });
}

/** A whole last record at `offset` that does not verify: damage, never cut off as a torn write is. */
function damagedLast(file: string, offset: number): DomainError {
  return new DomainError(
    'STORAGE_ERROR',
    `${file} is damaged: the ledger record at byte ${offset}, its last, is whole but not as written (a crash leaves no such record, and its commit may have been reported); nothing is cut. Keep a copy of the file, then either cut it at byte ${offset} by hand, dropping that record knowingly, or run taskdag init, which keeps the files as a corrupt-recovery snapshot and starts afresh (taskdag restore of that snapshot replays the records before it when the ledger reaches back to the project's creation)`,
    { cause: 'EINVALID', path: file, offset },
  );
}

/** The offset of the first intact record at or after `from`, if any. */
function nextValidRecord(bytes: Buffer, from: number): number | null {
  for (let at = bytes.indexOf(START, from); at >= 0; at = bytes.indexOf(START, at + 1)) {
    if (recordAt(bytes, at) !== null) return at;
  }
  return null;
}

/** The JSON value of `bytes` (from `start` to `end`: decoded without a view of them made first), or undefined when they hold none. */
function parseJson(bytes: Buffer, start = 0, end = bytes.length): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', start, end));
  } catch {
    return undefined;
  }
}

/** An intact record that is not a change set was written wrong, not torn: always an error. */
function asChangeSet(value: unknown, file: string, offset: number): ChangeSet {
  const changes = changeSetOf(value);
  if (changes === null) throw invalidFile(file, `the ledger record at byte ${offset} is malformed`);
  return changes;
}

/**
 * `value` as a change set, or null when it is not one. Release 0.1.0 wrote a change set that
 * appended no note without `notes`: every ledger it wrote has such records, so they read as `[]`.
 */
export function changeSetOf(value: unknown): ChangeSet | null {
  if (!isChangeSetShape(value)) return null;
  return value.notes === undefined ? { ...value, notes: [] } : value;
}

function isChangeSetShape(value: unknown): value is ChangeSet {
  const isRecord = (field: unknown) => typeof field === 'object' && field !== null && !Array.isArray(field);
  if (!isRecord(value)) return false;
  const changes = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(changes.revision) &&
    Array.isArray(changes.log) &&
    isRecord(changes.nodes) &&
    isRecord(changes.initiatives) &&
    Array.isArray(changes.edges) &&
    (changes.notes === undefined || (Array.isArray(changes.notes) && changes.notes.every(isNoteAppended))) &&
    (changes.requests === undefined || (Array.isArray(changes.requests) && changes.requests.every(isRememberedRequest)))
  );
}

function isNoteAppended(value: unknown): boolean {
  const appended = value as Record<string, unknown> | null;
  return (
    typeof appended === 'object' &&
    appended !== null &&
    typeof appended.node === 'string' &&
    typeof appended.note === 'object' &&
    appended.note !== null &&
    Number.isSafeInteger(appended.revision) &&
    typeof appended.updated_at === 'string'
  );
}
