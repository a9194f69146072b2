import type { Claim, KnowledgeScope, NodeId, NodeType } from '../domain/model.js';
import type { NodeHead } from '../domain/status-index.js';

/**
 * The heads as the checkpoint stores them: by column, in the order of the node ids, so that tens
 * of thousands of heads parse as a few flat lists. Repeated strings (statuses, initiatives,
 * domains) are numbers into a table; claims and scopes are listed only for the nodes that have one.
 */
export interface HeadColumns {
  /** One character per node: `t`ask, `g`ate or `k`nowledge. */
  types: string;
  strings: (string | null)[];
  status: number[];
  initiative: number[];
  domain: number[];
  created_at: string[];
  /** `[position, by, at]` for each claimed task, and `{token, lease_ms, expires_at}` (those it has) after them when it has any. */
  claims: ([number, string, string] | [number, string, string, ClaimExtras])[];
  /** `[position, scope]` for each knowledge node. */
  scopes: [number, KnowledgeScope][];
  /** `[position, priority]` for each task that has a priority. */
  priorities: [number, number][];
}

/** What a claim carries beyond the spec's `{by, at}` (domain/fencing.ts). */
type ClaimExtras = Omit<Claim, 'by' | 'at'>;

const TYPE_CODES: Record<NodeType, string> = { task: 't', gate: 'g', knowledge: 'k' };
const TYPES_BY_CODE: Record<string, NodeType> = { t: 'task', g: 'gate', k: 'knowledge' };

/**
 * Every node's head, in the order of the node ids, so a load derives no status; built in slices
 * of `slice` heads, yielding between them (a server goes on serving meanwhile).
 */
export function* headColumns(heads: readonly NodeHead[], slice: number): Generator<void, HeadColumns> {
  const strings: (string | null)[] = [];
  const numbers = new Map<string | null, number>();
  const code = (value: string | null) => {
    let number = numbers.get(value);
    if (number === undefined) {
      number = strings.push(value) - 1;
      numbers.set(value, number);
    }
    return number;
  };
  const columns: HeadColumns = { types: '', strings, status: [], initiative: [], domain: [], created_at: [], claims: [], scopes: [], priorities: [] };
  const types: string[] = [];
  for (const [position, head] of heads.entries()) {
    if (position > 0 && position % slice === 0) yield;
    types.push(TYPE_CODES[head.type]);
    columns.status.push(code(head.status));
    columns.initiative.push(code(head.initiative));
    columns.domain.push(code(head.domain));
    columns.created_at.push(head.created_at);
    if (head.claim) {
      const { by, at, ...extras } = head.claim;
      columns.claims.push(Object.keys(extras).length === 0 ? [position, by, at] : [position, by, at, extras]);
    }
    if (head.scope) columns.scopes.push([position, head.scope]);
    if (head.priority !== null) columns.priorities.push([position, head.priority]);
  }
  columns.types = types.join('');
  return columns;
}

/**
 * The heads a checkpoint stores, or null when they are malformed: heads are derived data, so the
 * reader derives them again from the nodes (slower, never wrong) rather than refuse the file.
 */
export function headsOf(value: unknown, ids: readonly NodeId[]): NodeHead[] | null {
  const columns = value as Partial<HeadColumns> | null;
  const count = ids.length;
  if (typeof columns !== 'object' || columns === null || !isTypes(columns.types, count) || !Array.isArray(columns.strings)) return null;
  const strings = columns.strings;
  const stringAt = (number: unknown): number is number => Number.isInteger(number) && (number as number) >= 0 && (number as number) < strings.length;
  const textAt = (number: unknown) => stringAt(number) && typeof strings[number] === 'string';
  if (!isColumn(columns.status, count, textAt) || !isColumn(columns.initiative, count, textAt)) return null;
  if (!isColumn(columns.domain, count, (number) => stringAt(number) && (strings[number] === null || typeof strings[number] === 'string'))) return null;
  if (!isColumn(columns.created_at, count, (text) => typeof text === 'string')) return null;
  const claims = sparse(columns.claims, count, (entry) => typeof entry[1] === 'string' && typeof entry[2] === 'string' && (entry.length === 3 || (entry.length === 4 && isClaimExtras(entry[3]))));
  const scopes = sparse(columns.scopes, count, (entry) => entry.length === 2 && isScope(entry[1]));
  const priorities = sparse(columns.priorities, count, (entry) => entry.length === 2 && Number.isInteger(entry[1]));
  if (!claims || !scopes || !priorities) return null;
  const heads = ids.map((id, position): NodeHead => ({
    id,
    type: TYPES_BY_CODE[columns.types![position]!]!,
    status: strings[columns.status![position]!] as string,
    initiative: strings[columns.initiative![position]!] as string,
    domain: strings[columns.domain![position]!] as string | null,
    created_at: columns.created_at![position]!,
    claim: null,
    scope: null,
    priority: null,
  }));
  for (const [position, by, at, extras] of claims as HeadColumns['claims']) heads[position]!.claim = { by, at, ...extras } satisfies Claim;
  for (const [position, scope] of scopes as HeadColumns['scopes']) heads[position]!.scope = scope;
  for (const [position, priority] of priorities as HeadColumns['priorities']) heads[position]!.priority = priority;
  return heads.every((head) => (head.scope !== null) === (head.type === 'knowledge')) ? heads : null;
}

function isTypes(types: unknown, count: number): types is string {
  return typeof types === 'string' && types.length === count && /^[tgk]*$/.test(types);
}

function isColumn(column: unknown, count: number, valid: (item: unknown) => boolean): boolean {
  return Array.isArray(column) && column.length === count && column.every(valid);
}

/** Entries `[position, ...]` at distinct positions among `count`, each valid; null otherwise. */
function sparse(list: unknown, count: number, valid: (entry: unknown[]) => boolean): unknown[][] | null {
  if (!Array.isArray(list)) return null;
  const seen = new Set<number>();
  for (const entry of list) {
    if (!Array.isArray(entry) || !Number.isInteger(entry[0]) || entry[0] < 0 || entry[0] >= count || seen.has(entry[0]) || !valid(entry)) return null;
    seen.add(entry[0]);
  }
  return list as unknown[][];
}

function isClaimExtras(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const extras = value as Record<string, unknown>;
  return (
    Object.keys(extras).every((key) => ['token', 'lease_ms', 'expires_at'].includes(key)) &&
    (extras.token === undefined || Number.isInteger(extras.token)) &&
    (extras.lease_ms === undefined || Number.isInteger(extras.lease_ms)) &&
    (extras.expires_at === undefined || typeof extras.expires_at === 'string')
  );
}

function isScope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const scope = value as Record<string, unknown>;
  return isTextList(scope.domains) && isTextList(scope.initiatives) && isTextList(scope.tags) && isTextList(scope.node_ids);
}

/** A list of strings. A loop, not `every` with a callback: a command checks thousands of scopes in code not yet optimized, where each callback is a call. */
function isTextList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let at = 0; at < value.length; at++) if (typeof value[at] !== 'string') return false;
  return true;
}

/**
 * A knowledge node's head as its own section keeps it, with where its line is in the node section
 * (its key's first byte and its JSON's end, from the first node line's start, `ends` as the
 * checkpoint's; and its position among the ids, where its line's checksum is):
 * `[id, status, initiative, domain, created_at, scope, key, end, position]`. A file written before
 * the line was kept here has the first six alone.
 */
type KnowledgeEntry = [NodeId, string, string, string | null, string, KnowledgeScope, number, number, number];

/** Where a knowledge node's line is in the node section, and its position among the ids. */
export interface LineSpan {
  key: number;
  end: number;
  position: number;
  /** The line's CRC-32 as written, where the section that says where the line is saves it too (`knowledge_scopes`). */
  crc?: number;
}

/** A knowledge head as its section keeps it, and where its line is (null in a file that does not say). */
export interface KnowledgeRecord {
  head: NodeHead;
  line: LineSpan | null;
}

/**
 * Each entry comes after a tab, which JSON allows between values and JSON.stringify never writes
 * (it escapes one in a string): a reader finds the entries that hold a given string, and their
 * bounds, in the section's bytes without parsing the others (`scopedKnowledge`).
 */
const ENTRY_MARK = '\t';

/**
 * The knowledge section: the knowledge heads alone, in the order given (every node's, `ends` in
 * the same order), each entry after a tab: what `search` and scope matching read.
 */
export function knowledgeSection(heads: readonly NodeHead[], ends: readonly number[]): Buffer {
  const entries: string[] = [];
  for (const [position, head] of heads.entries()) {
    if (head.scope === null) continue;
    const key = position === 0 ? 0 : ends[position - 1]! + 2;
    const entry: KnowledgeEntry = [head.id, head.status, head.initiative, head.domain, head.created_at, head.scope, key, ends[position]!, position];
    entries.push(`\t${JSON.stringify(entry)}`);
  }
  return Buffer.from(`[${entries.join(',')}]`);
}

/** The knowledge heads a knowledge section holds, or null when it is malformed. */
export function knowledgeHeadsOf(value: unknown): KnowledgeRecord[] | null {
  if (!Array.isArray(value)) return null;
  const records: KnowledgeRecord[] = [];
  for (const entry of value) {
    const record = knowledgeRecordOf(entry);
    if (record === null) return null;
    records.push(record);
  }
  return records;
}

function knowledgeRecordOf(entry: unknown): KnowledgeRecord | null {
  if (!Array.isArray(entry) || (entry.length !== 6 && entry.length !== 9)) return null;
  // Read by index: destructuring goes through the iterator protocol, a call per item in code not yet optimized.
  const id: unknown = entry[0];
  const status: unknown = entry[1];
  const initiative: unknown = entry[2];
  const domain: unknown = entry[3];
  const created_at: unknown = entry[4];
  const scope: unknown = entry[5];
  const key: unknown = entry[6];
  const end: unknown = entry[7];
  const position: unknown = entry[8];
  if (typeof id !== 'string' || typeof status !== 'string' || typeof initiative !== 'string' || (domain !== null && typeof domain !== 'string') || typeof created_at !== 'string' || !isScope(scope)) return null;
  const spans = Number.isSafeInteger(key) && Number.isSafeInteger(end) && Number.isSafeInteger(position) && (key as number) >= 0 && (key as number) < (end as number);
  const line = entry.length === 9 && spans ? { key: key as number, end: end as number, position: position as number } : null;
  if (entry.length === 9 && line === null) return null;
  return { head: { id, type: 'knowledge', status, initiative, domain: domain as string | null, created_at, claim: null, scope: scope as KnowledgeScope, priority: null }, line };
}

/**
 * The entries of knowledge section `bytes` (checksum checked by the caller) whose scope holds one of
 * `values` as a JSON string, parsed: every entry whose scope names one of them, and a few others
 * (one whose scope holds it in another list); the caller matches scopes. Null when the section
 * cannot be read so: not one entry after a tab (a section written otherwise), or an escape in it
 * (a string escaped is not found by its plain text), or an entry found malformed.
 */
export function scopedKnowledge(bytes: Buffer, values: readonly string[]): KnowledgeRecord[] | null {
  if (bytes.length < 2 || bytes[0] !== 0x5b || bytes[bytes.length - 1] !== 0x5d || (bytes.length > 2 && bytes[1] !== ENTRY_MARK.charCodeAt(0)) || bytes.includes(0x5c)) return null;
  // Searched as a string: one decoding, then searches that set nothing up per call (a Buffer's indexOf does, at every hit).
  const text = bytes.toString('utf8');
  const starts = new Set<number>();
  for (const value of values) {
    const needle = JSON.stringify(value);
    for (let at = text.indexOf(needle, 1); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      const start = text.lastIndexOf(ENTRY_MARK, at);
      // Only a hit inside the scope, the entry's one object, can be a scope's: one before its brace
      // is the entry's own initiative or domain (a third of the hits at 50k nodes, parsed for nothing).
      if (text.lastIndexOf('{', at) > start) starts.add(start);
    }
  }
  const pieces: string[] = [];
  for (const start of [...starts].sort((a, b) => a - b)) {
    const next = text.indexOf(ENTRY_MARK, start + 1);
    // An entry ends before the comma that precedes the next one's tab, or before the closing bracket.
    pieces.push(text.slice(start + 1, next < 0 ? text.length - 1 : next - 1));
  }
  let entries: unknown;
  try {
    // One parse of the entries found, not one each: a parse's set-up cost more than its entry.
    entries = JSON.parse(`[${pieces.join(',')}]`);
    if (!Array.isArray(entries) || entries.length !== pieces.length) return null;
  } catch {
    return null;
  }
  return knowledgeHeadsOf(entries);
}
