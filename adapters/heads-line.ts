import type { Claim, KnowledgeScope, NodeId, NodeType } from '../domain/model.js';
import { summarizeListed, type NodeListing } from '../domain/node-summary.js';
import type { SavedBlockers } from '../domain/blockers.js';
import type { Aged, ClaimedTask, ClaimEntry as WrittenClaim, NodeHead, PrintedPage, SavedBuckets } from '../domain/status-index.js';
import { LISTED_BY_DEFAULT } from '../domain/status-report.js';
import { claimAlertsRenderer, type ClaimAlertsRenderer } from './claim-alerts-wasm.js';
import { crc32 } from './crc32.js';
import { eightHexDigits } from './hex-digits.js';
import { SavedEndpoints } from './edge-endpoints.js';
import { headsOf, knowledgeHeadsOf, scopedKnowledge, type KnowledgeRecord, type LineSpan } from './head-columns.js';
import { scopedLines } from './knowledge-scopes.js';
import { knowledgeHoldingBits, trigramBits } from './knowledge-trigrams.js';

/**
 * The checkpoint's heads line (line 5) in sections, so that a reader takes only what it needs:
 *
 *   "heads":{"sections":{<directory>},"columns":{...},"knowledge":[...],"endpoints":[...],"buckets":{...},...}},
 *
 * - `columns`: every node's head by column (head-columns.ts): `status` with a narrowing filter,
 *   `next`, a checkpoint rewrite;
 * - `knowledge`: the knowledge heads alone, each with where its node's line is, each after a tab
 *   (head-columns.ts): `search` reads them all, `context`/`take` the entries naming their node's
 *   id, tags, domain or initiative;
 * - `endpoints`: the edges by endpoint (edge-endpoints.ts): every command that looks at a few
 *   nodes' edges (`context`, `take`, the nodes a ledger tail changed), or `null`;
 * - `line_crc32`: the CRC-32 of every node's line (`"id":{...}`) as written, 8 hex digits each in
 *   the order of the ids: every node read from the checkpoint is checked against it (lazy-nodes.ts),
 *   so the heads are never used beside a line that is not the one they were derived from;
 * - `knowledge_trigram_rows`: a filter of each knowledge line's text as written, stored by bit,
 *   and where each `knowledge` entry is (knowledge-trigrams.ts): `search` reads the rows of its
 *   query's runs, then only the entries and lines they let through (absent from a file of an
 *   earlier build: every line is read);
 * - `knowledge_scopes`: the knowledge items by each value their scopes name, in a hash table of
 *   buckets each with its own checksum (knowledge-scopes.ts): `context`/`take` read the buckets of
 *   their node's values and those items' lines, not the `knowledge` section (absent from a file of
 *   an earlier build, or a bucket that does not check: the `knowledge` section is read);
 * - the status buckets apart (`bucketSections`): what `status` lists.
 *
 * The directory gives each section's bytes (from the line's start) and CRC-32 (zeros for the
 * endpoints, whose entries carry their own), at a fixed width so that it is written before the
 * sections are, and holds no brace (it ends at the first `}`); the checkpoint's `heads_crc32` is
 * the CRC-32 of the line up to the directory's end. A section is used only when its checksum holds (the endpoints'
 * entries carry their own, being read one at a time); otherwise it is derived again from the nodes.
 */
export const SECTIONS = ['columns', 'knowledge', 'endpoints'] as const;

export const HEADS_DIRECTORY_START = '"heads":{"sections":';
const OFFSET_DIGITS = 10;
/** The longest directory a reader looks for (a 50k-node graph's is about 15 KB). */
const DIRECTORY_LIMIT = 1024 * 1024;

/** Where a section of the heads line is (bytes from the line's start) and its CRC-32, in hex. */
export interface Bounds {
  start: number;
  end: number;
  crc: string;
}

function directoryOf(sections: readonly (readonly [string, Bounds])[]): string {
  const entry = ({ start, end, crc }: Bounds) => `["${digits(start)}","${digits(end)}","${crc}"]`;
  return `{${sections.map(([name, bounds]) => `${JSON.stringify(name)}:${entry(bounds)}`).join(',')}}`;
}

function digits(value: number): string {
  return String(value).padStart(OFFSET_DIGITS, '0');
}

/** How many bytes are checksummed between two yields. */
const CRC_SLICE = 256 * 1024;

function* crcInSlices(bytes: Buffer): Generator<void, number> {
  let crc = 0;
  for (let at = 0; at < bytes.length; at += CRC_SLICE) {
    crc = crc32(bytes.subarray(at, Math.min(at + CRC_SLICE, bytes.length)), crc);
    yield;
  }
  return crc;
}

/**
 * The heads line of these sections, in order (newline included), and its directory's CRC-32
 * (`heads_crc32`). The endpoints are read an entry at a time, each with its own checksum: the
 * section's is zeros.
 */
export function* headsLine(sections: readonly (readonly [string, Buffer])[]): Generator<void, { line: Buffer; crc: string; bounds: ReadonlyMap<string, Bounds> }> {
  const placeholder = { start: 0, end: 0, crc: '00000000' };
  let offset = HEADS_DIRECTORY_START.length + directoryOf(sections.map(([name]) => [name, placeholder])).length;
  const pieces: Buffer[] = [];
  const bounds: [string, Bounds][] = [];
  for (const [name, bytes] of sections) {
    const key = Buffer.from(`,${JSON.stringify(name)}:`);
    const start = offset + key.length;
    const crc = name === 'endpoints' ? 0 : yield* crcInSlices(bytes);
    bounds.push([name, { start, end: start + bytes.length, crc: eightHexDigits(crc) }]);
    pieces.push(key, bytes);
    offset = start + bytes.length;
  }
  const head = Buffer.from(`${HEADS_DIRECTORY_START}${directoryOf(bounds)}`);
  return { line: Buffer.concat([head, ...pieces, Buffer.from('}},\n')]), crc: eightHexDigits(crc32(head)), bounds: new Map(bounds) };
}

/**
 * Where a status bucket's pages end (heads from its start): the first pages small, so that a
 * `status --limit 20` reads 20 heads a group and the default `--limit 100` reads 100, then
 * `BUCKET_PAGE` a page. A reader takes pages in order until it has enough, whatever their sizes.
 */
const FIRST_PAGE_ENDS = [20, 100] as const;
const BUCKET_PAGE = 200;

/** The CRC-32 each node line of a checkpoint was written with, by the node's position among the ids. */
export interface LineChecksums {
  /** As read alone (8 bytes), unchecked: a line that differs from it is damage only if the section is `intact`. */
  at(position: number): number | undefined;
  /** Whether the section holds its own checksum (read whole, once): else it says nothing of the lines. */
  intact(): boolean;
  /** From the section read whole, when it is intact (what a rewrite copies with a line it never read); undefined otherwise. */
  checkedAt(position: number): number | undefined;
}

/** Section bounds given as `[start, end, crc]` (`checkpoint.line_crc32`), when they are that and within a line of `size` bytes. */
function boundsOf(value: unknown, size: number): Bounds | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [start, end, crc] = value as unknown[];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || typeof crc !== 'string' || !/^[0-9a-f]{8}$/.test(crc)) return null;
  return (start as number) >= 0 && (start as number) < (end as number) && (end as number) <= size ? { start: start as number, end: end as number, crc } : null;
}

/**
 * Section `name`'s entry in `directory` (the directory's text from its brace, `directoryEnd` bytes
 * from the line's start to its end), when it is there and within a line of `size` bytes: each entry
 * is `"<name>":["<start>","<end>","<crc>"]`, after the brace or a comma.
 */
function boundsIn(directory: string, name: string, directoryEnd: number, size: number): Bounds | null {
  const key = `${JSON.stringify(name)}:[`;
  let at = directory.indexOf(key);
  while (at > 0 && directory[at - 1] !== '{' && directory[at - 1] !== ',') at = directory.indexOf(key, at + 1);
  if (at <= 0) return null;
  const close = directory.indexOf(']', at);
  let entry: unknown;
  try {
    entry = JSON.parse(directory.slice(at + key.length - 1, close + 1));
  } catch {
    return null;
  }
  if (!Array.isArray(entry) || entry.length !== 3 || !entry.every((item) => typeof item === 'string')) return null;
  const [first, last, crc] = entry as [string, string, string];
  const bounds = { start: Number(first), end: Number(last), crc };
  return bounds.start >= directoryEnd && bounds.start <= bounds.end && bounds.end <= size ? bounds : null;
}

/** How many checksums are read one at a time before the section is read whole (a command that reads most nodes). */
const SINGLE_CHECKSUM_READS = 64;

function pageBounds(count: number): [number, number][] {
  const bounds: [number, number][] = [];
  for (let start = 0; start < count; ) {
    const end = Math.min(count, FIRST_PAGE_ENDS.find((first) => first > start) ?? start + BUCKET_PAGE);
    bounds.push([start, end]);
    start = end;
  }
  return bounds;
}

/** The directory entries of the listing, blockers and printed pages of the groups `status` lists by default, at most. */
const LISTED_PAGE_ENTRIES = 26;

/** How many heads of a bucket, from its start, a save lists with their `listing` (what `status` lists by default). */
const LISTED_HEADS = 100;

/** A node's title, tags and revision as a `listing <n> <page>` entry holds them. */
type ListingEntry = [string, string[], number];

/**
 * The sections that keep the status buckets apart (what `status` reads without every head):
 * `buckets` (their names, `<type> <status>`, their counts and pages), `bucket_of` (one character
 * per node, in the order of the ids: the number of its bucket, from `0`), `claims` (the claimed
 * tasks in progress, the longest-held first, `[id, by, at, ms]` each: what a stale-claim alert says
 * of its task) and `bucket <n> <page>` (a bucket's heads, oldest
 * first, in pages of `pageBounds`). A head is `[id, created_at, initiative, domain, claim, priority, scope]`.
 * Given `listingOf`, the pages of the first LISTED_HEADS heads of each bucket `status` lists
 * without `--all` (LISTED_BY_DEFAULT) each have a `listing <n> <page>` too: each head's
 * `[title, tags, revision]` (null where `listingOf` has none), so that `status` lists them
 * without reading their nodes. Given `blockersOf`, those of the blocked tasks have a
 * `blockers <n> <page>` as well: each task's `[direct, direct_count, open_roots,
 * open_roots_count, reads]` (SavedBlockers; null where `blockersOf` has none), so that `status`
 * names what they wait on without walking their blockers.
 */
export function bucketSections(
  groups: readonly (readonly [string, readonly NodeHead[]])[],
  order: readonly NodeHead[],
  claimed: readonly NodeHead[],
  listingOf?: (id: NodeId) => NodeListing | null,
  blockersOf?: (id: NodeId) => SavedBlockers | null,
): [string, Buffer][] | null {
  if (groups.length > BUCKET_CODES.length) return null;
  const number = new Map(groups.map(([key], at) => [key, at]));
  let of = '';
  for (const head of order) {
    const at = number.get(`${head.type} ${head.status}`);
    if (at === undefined) return null;
    of += BUCKET_CODES[at];
  }
  const names = groups.map(([key]) => key);
  const counts = groups.map(([, heads]) => heads.length);
  const bounds = groups.map(([, heads]) => pageBounds(heads.length));
  const pages = bounds.map((pagesOf) => pagesOf.length);
  const sections: [string, Buffer][] = [
    ['buckets', Buffer.from(JSON.stringify({ names, counts, pages }))],
    ['bucket_of', Buffer.from(JSON.stringify(of))],
    ['claims', Buffer.from(JSON.stringify(claimed.map(claimEntryOf)))],
  ];
  for (const [at, [, heads]] of groups.entries()) {
    for (const [page, [start, end]] of bounds[at]!.entries()) {
      sections.push([`bucket ${at} ${page}`, Buffer.from(JSON.stringify(heads.slice(start, end).map(entryOf)))]);
      if (start >= LISTED_HEADS || !LISTED_BY_DEFAULT.has(groups[at]![0])) continue;
      const listed = heads.slice(start, end);
      if (listingOf) sections.push([`listing ${at} ${page}`, Buffer.from(JSON.stringify(listed.map((head) => listingEntry(listingOf(head.id)))))]);
      if (blockersOf && groups[at]![0] === BLOCKED) sections.push([`blockers ${at} ${page}`, Buffer.from(JSON.stringify(listed.map((head) => blockersEntry(blockersOf(head.id)))))]);
      const printed = listingOf && printedPage(listed, listingOf, groups[at]![0] === BLOCKED ? blockersOf : undefined);
      if (printed) sections.push([`printed ${at} ${page}`, printed]);
    }
  }
  return sections;
}

/**
 * A `printed <n> <page>` section: the ids of every node the page's entries were read from besides
 * their own (a blocked task's blockers and the chains above them), then the page's heads as
 * `status` prints them (NodeSummary, each blocked task with its saved blockers), their JSON joined
 * by commas, as one string: `[[<ids>],"<entries>"]`. (A string, so that a node's text appears
 * nowhere else in the file as it does on its line.) `status` lists a group's first heads from it
 * as they are written, making no object of them, while none of those ids (nor an entry's own) is
 * among the nodes the ledger tail changed. None (null) when a head has no listing, or a blocked
 * task no saved blockers: `status` reads that page's heads.
 */
function printedPage(heads: readonly NodeHead[], listingOf: (id: NodeId) => NodeListing | null, blockersOf: ((id: NodeId) => SavedBlockers | null) | undefined): Buffer | null {
  const reads = new Set<NodeId>();
  const entries: string[] = [];
  for (const head of heads) {
    const listing = listingOf(head.id);
    if (!listing) return null;
    const summary = summarizeListed(head, listing);
    if (blockersOf) {
      const saved = blockersOf(head.id);
      if (!saved) return null;
      summary.blockers = saved.blockers;
      for (const id of saved.reads) if (id !== head.id) reads.add(id);
    }
    entries.push(JSON.stringify(summary));
  }
  return Buffer.from(JSON.stringify([[...reads], entries.join(',')]));
}

/** The stale-claim alerts' module (claim-alerts-wasm.ts), made when `status` first writes them; null without WebAssembly. */
let alertsRenderer: ClaimAlertsRenderer | null | undefined;

function claimAlerts(): ClaimAlertsRenderer | null {
  if (alertsRenderer === undefined) alertsRenderer = claimAlertsRenderer();
  return alertsRenderer;
}

/** Bucket numbers as one character each: printable, never escaped in JSON. */
const BUCKET_CODES = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

type HeadEntry = [NodeId, string, string, string | null, Claim | null, number | null, KnowledgeScope | null];

function entryOf(head: NodeHead): HeadEntry {
  return [head.id, head.created_at, head.initiative, head.domain, head.claim, head.priority, head.scope];
}

/**
 * A claimed task as a `claims` entry holds it: all a stale-claim alert says of it, a third of its
 * head's entry, and when it was claimed in milliseconds since the epoch (null when the time does not
 * parse), so that `status` works out each alert's age without parsing a date (3.7 M instructions
 * for the 1,221 claims of a 50k-node project).
 */
type ClaimEntry = [NodeId, string, string, number | null];

function claimEntryOf(head: NodeHead): ClaimEntry {
  const millis = Date.parse(head.claim!.at);
  return [head.id, head.claim!.by, head.claim!.at, Number.isNaN(millis) ? null : millis];
}

/**
 * The claimed task a `claims` entry holds, or null when it is malformed: `[id, by, at, ms]`, or
 * `[id, by, at]` or a whole head entry, as checkpoints written before held them.
 */
function claimedOfEntry(entry: unknown): ClaimedTask | null {
  if (!isClaimEntry(entry)) {
    const head = headOfEntry(entry, 'task', 'in_progress');
    return head?.claim ? head : null;
  }
  const [id, by, at] = entry as [string, string, string];
  return { id, claim: { by, at } };
}

/**
 * A `claims` section's entries, when they are `[id, by, at, ms]` (or `[id, by, at]`, as checkpoints
 * written before held them) and none of their strings holds an
 * escape (so each is what `JSON.stringify` writes of it, between quotes); null otherwise: a
 * section that holds whole heads (as checkpoints written before saved them), a name JSON escapes.
 * Its checksum says a release wrote it, and a release writes one form throughout: the first and
 * last entries say which, with no step taken per entry.
 */
function claimEntriesAsWritten(text: string): WrittenClaim[] | null {
  if (text.includes('\\')) return null;
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(entries)) return null;
  return entries.length === 0 || (isClaimEntry(entries[0]) && isClaimEntry(entries[entries.length - 1])) ? (entries as WrittenClaim[]) : null;
}

/** A `printed` section's value as `SavedBuckets.printed` gives it, or null when it is not `[[<ids>],"<entries>"]`. */
function printedOfSection(value: unknown): PrintedPage | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [reads, entries] = value as unknown[];
  return isIdList(reads) && typeof entries === 'string' && entries.startsWith('{"id":') && entries.endsWith('}') ? { reads, entries } : null;
}

function isClaimEntry(entry: unknown): boolean {
  if (!Array.isArray(entry) || (entry.length !== 3 && entry.length !== 4)) return false;
  const [id, by, at, millis] = entry as unknown[];
  return typeof id === 'string' && typeof by === 'string' && typeof at === 'string' && (entry.length === 3 || millis === null || Number.isSafeInteger(millis));
}

/** The ids whose listing a save of these buckets holds: the first LISTED_HEADS heads of each bucket `status` lists by default. */
export function listedIds(groups: readonly (readonly [string, readonly NodeHead[]])[]): Set<NodeId> {
  return new Set(groups.flatMap(([key, heads]) => (LISTED_BY_DEFAULT.has(key) ? heads.slice(0, LISTED_HEADS).map((head) => head.id) : [])));
}

/** The bucket of the blocked tasks, whose listed heads a save gives their blockers too. */
const BLOCKED = 'task blocked';

/** The blocked tasks whose blockers a save of these buckets holds: the first LISTED_HEADS of theirs. */
export function listedBlocked(groups: readonly (readonly [string, readonly NodeHead[]])[]): NodeHead[] {
  return groups.find(([key]) => key === BLOCKED)?.[1].slice(0, LISTED_HEADS) ?? [];
}

/** A blocked task's blockers as a `blockers <n> <page>` entry holds them. */
type BlockersEntry = [NodeId[], number, NodeId[], number, NodeId[]];

function blockersEntry(saved: SavedBlockers | null): BlockersEntry | null {
  return saved && [saved.blockers.direct, saved.blockers.direct_count, saved.blockers.open_roots, saved.blockers.open_roots_count, saved.reads];
}

const isIdList = (value: unknown): value is NodeId[] => Array.isArray(value) && value.every((id) => typeof id === 'string');

/** The blockers an entry of a `blockers` section holds, or undefined when it holds none or is malformed. */
function blockersOfEntry(entry: unknown): SavedBlockers | undefined {
  if (!Array.isArray(entry) || entry.length !== 5) return undefined;
  const [direct, directCount, openRoots, openRootsCount, reads] = entry as unknown[];
  if (!isIdList(direct) || !isIdList(openRoots) || !isIdList(reads) || !Number.isInteger(directCount) || !Number.isInteger(openRootsCount)) return undefined;
  return { blockers: { direct, direct_count: directCount as number, open_roots: openRoots, open_roots_count: openRootsCount as number }, reads };
}

function listingEntry(listing: NodeListing | null): ListingEntry | null {
  return listing && [listing.title, listing.tags, listing.revision];
}

/** The listing an entry of a `listing` section holds, or undefined when it holds none or is malformed. */
function listingOfEntry(entry: unknown): NodeListing | undefined {
  if (!Array.isArray(entry) || entry.length !== 3) return undefined;
  const [title, tags, revision] = entry as unknown[];
  if (typeof title !== 'string' || !Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string') || !Number.isInteger(revision)) return undefined;
  return { title, tags: tags as string[], revision: revision as number };
}

/** The head an entry of bucket `key` holds, or null when it is malformed. */
function headOfEntry(entry: unknown, type: NodeType, status: string): NodeHead | null {
  if (!Array.isArray(entry) || entry.length !== 7) return null;
  const [id, created_at, initiative, domain, claim, priority, scope] = entry as unknown[];
  if (typeof id !== 'string' || typeof created_at !== 'string' || typeof initiative !== 'string' || (domain !== null && typeof domain !== 'string')) return null;
  if (priority !== null && !Number.isInteger(priority)) return null;
  if (claim !== null && (typeof claim !== 'object' || typeof (claim as Claim).by !== 'string' || typeof (claim as Claim).at !== 'string')) return null;
  if ((scope !== null) !== (type === 'knowledge') || (scope !== null && typeof scope !== 'object')) return null;
  return { id, type, status, initiative, domain: domain as string | null, created_at, claim: claim as Claim | null, scope: scope as KnowledgeScope | null, priority: priority as number | null };
}

/** A head entry's id and creation time (`[id, created_at, ...]`), or null when it does not hold them. */
function agedOfEntry(entry: unknown): Aged | null {
  if (!Array.isArray(entry)) return null;
  const [id, created_at] = entry as unknown[];
  return typeof id === 'string' && typeof created_at === 'string' ? { id, created_at } : null;
}

function keyParts(key: string): { type: NodeType; status: string } | null {
  const [type, status] = key.split(' ');
  return (type === 'task' || type === 'gate' || type === 'knowledge') && status ? { type, status } : null;
}

/**
 * The heads a checkpoint saved, read from its heads line as they are asked for: `read` gives bytes
 * of the line (offsets from its start, `size` its length without the newline), `crc` is the
 * checkpoint's `heads_crc32`. Each call answers null when what it needs cannot be used. A line
 * written before the sections (one CRC-32 for the whole line, the columns alone: release 0.1.0)
 * has no line checksums, so nothing in it is used: its heads are derived again from the nodes.
 */
export class SavedHeadsLine {
  /** The directory's text (from its brace), once read: null when the line has none that checks (or is of the older form). */
  private directory: string | null | undefined;
  /** The sections looked up in the directory so far, by name (null: not there, or not within the line). */
  private readonly bounds = new Map<string, Bounds | null>();
  /** Where the knowledge nodes read from the knowledge section have their lines. */
  private readonly knowledgeLines = new Map<NodeId, LineSpan>();
  private checksums: LineChecksums | null | undefined;

  constructor(
    private readonly read: (start: number, end: number) => Buffer,
    private readonly size: number,
    private readonly crc: string,
    /** The checkpoint's node ids in file order (its id list, parsed when first asked for), and how many there are. */
    private readonly ids: () => readonly NodeId[],
    private readonly count: () => number,
    /** Where the `line_crc32` section is, as line 2 says (`checkpoint.line_crc32`), so that a point read needs no directory. */
    private readonly lineChecksumBounds: unknown = undefined,
  ) {}

  /** Every node's head, in the order of the ids. */
  all(): NodeHead[] | null {
    const columns = this.section('columns');
    return columns === null ? null : headsOf(columns, this.ids());
  }

  /** The knowledge heads alone. */
  knowledge(): NodeHead[] | null {
    const knowledge = this.section('knowledge');
    return knowledge === null ? null : this.noteLines(knowledgeHeadsOf(knowledge));
  }

  /**
   * The knowledge heads whose node's line as written may hold every one of `pieces` (lowercase runs
   * of printable ASCII), as the `knowledge_trigram_rows` filters say, reading the rows of those
   * runs and the entries they let through alone. Null when the line cannot say so (no such section, one that does not check, or no piece
   * three characters long): the caller reads every knowledge head.
   */
  knowledgeMayHold(pieces: readonly string[]): NodeHead[] | null {
    const bits = trigramBits(pieces);
    if (bits.length === 0) return null;
    const rows = this.sectionBounds('knowledge_trigram_rows');
    const knowledge = rows && this.sectionBounds('knowledge');
    if (!rows || !knowledge) return null;
    const within = ({ start, end }: Bounds) => (from: number, to: number) => this.read(start + from, start + Math.min(to, end - start));
    return this.noteLines(knowledgeHoldingBits(within(rows), rows.end - rows.start, within(knowledge), knowledge.end - knowledge.start, bits));
  }

  /**
   * The knowledge heads whose section entry holds one of `values` (a scope names them), read
   * without parsing the other entries: a superset of those whose scope names one, the caller
   * matches. Null when the section cannot be read so (the caller reads it whole).
   */
  knowledgeHolding(values: readonly string[]): NodeHead[] | null {
    const bytes = this.sectionBytes('knowledge');
    return bytes === null ? null : this.noteLines(scopedKnowledge(bytes, values));
  }

  /**
   * The ids of the knowledge whose scope names one of `target`'s values in the same list, as the
   * `knowledge_scopes` section says, reading only the buckets of those values (where each item's
   * line is noted, for `knowledgeLine`). Null when the line has no such section or a bucket does
   * not check: the caller reads the knowledge section.
   */
  knowledgeNaming(target: KnowledgeScope): NodeId[] | null {
    const bounds = this.sectionBounds('knowledge_scopes');
    if (!bounds) return null;
    const found = scopedLines((from, to) => this.read(bounds.start + from, bounds.start + Math.min(to, bounds.end - bounds.start)), bounds.end - bounds.start, target);
    if (found === null) return null;
    for (const { id, line } of found) this.knowledgeLines.set(id, line);
    return found.map(({ id }) => id);
  }

  /**
   * The CRC-32 of each node line as written (`line_crc32`), or null when the line has none of
   * the node count's length. A command that reads a few lines reads their checksums alone (8
   * bytes each) and checks the section whole only when a line differs, so that a damaged section
   * (derived data, as the heads are) is not taken for damaged lines; once it has asked for many,
   * it reads and checks the section whole.
   */
  lineChecksums(): LineChecksums | null {
    if (this.checksums !== undefined) return this.checksums;
    this.checksums = null;
    const bounds = boundsOf(this.lineChecksumBounds, this.size);
    const count = this.count();
    if (!bounds || bounds.end - bounds.start !== 2 + 8 * count) return null;
    let singles = 0;
    let whole: string | null | undefined;
    const checked = () => {
      if (whole !== undefined) return whole;
      const bytes = this.read(bounds.start, bounds.end);
      whole = eightHexDigits(crc32(bytes)) === bounds.crc ? bytes.toString('latin1', 1, bytes.length - 1) : null;
      return whole;
    };
    // No pattern test: a checksum misread (garbage digits) differs from its line's, and the section's own check then says which is damaged.
    const parse = (digits: string) => {
      const value = digits.length === 8 ? parseInt(digits, 16) : NaN;
      return Number.isNaN(value) ? undefined : value;
    };
    const inRange = (position: number) => Number.isSafeInteger(position) && position >= 0 && position < count;
    const checkedAt = (position: number) => {
      const digits = inRange(position) ? checked() : null;
      return digits === null ? undefined : parse(digits.slice(8 * position, 8 * position + 8));
    };
    this.checksums = {
      at: (position) => {
        if (!inRange(position)) return undefined;
        if (whole !== undefined || ++singles > SINGLE_CHECKSUM_READS) return checkedAt(position);
        const at = bounds.start + 1 + 8 * position;
        return parse(this.read(at, at + 8).toString('latin1'));
      },
      intact: () => checked() !== null,
      checkedAt,
    };
    return this.checksums;
  }

  /** The edges by endpoint, or null when the line has none (`positionOf`: a node's position among the ids). */
  endpoints(positionOf: (id: NodeId) => number | undefined): SavedEndpoints | null {
    const bounds = this.sectionBounds('endpoints');
    if (!bounds) return null;
    const { start, end } = bounds;
    if (end - start < 4 || this.read(start, start + 2).toString('latin1') !== '["') return null;
    return new SavedEndpoints((from, to) => this.read(start + from, start + Math.min(to, end - start)), end - start, this.count(), positionOf);
  }

  /** Where knowledge node `id`'s line is in the node section, when its section entry was read and says. */
  knowledgeLine(id: NodeId): LineSpan | undefined {
    return this.knowledgeLines.get(id);
  }

  /** Keeps where the records' lines are (for `knowledgeLine`); their heads. */
  private noteLines(records: KnowledgeRecord[] | null): NodeHead[] | null {
    if (records === null) return null;
    for (const { head, line } of records) if (line) this.knowledgeLines.set(head.id, line);
    return records.map((record) => record.head);
  }

  /**
   * The status buckets apart (`bucketSections`), or null when the line has none. `positionOf`: a
   * node's position among the ids; `endpoints`: the edges by endpoint, whose entry at that position
   * must name the node for its saved bucket to be taken.
   */
  buckets(positionOf: (id: NodeId) => number | undefined, endpoints: () => SavedEndpoints | null): SavedBuckets | null {
    const listed = this.section('buckets') as { names?: unknown; counts?: unknown; pages?: unknown } | null;
    if (!listed || !Array.isArray(listed.names) || !Array.isArray(listed.counts) || !Array.isArray(listed.pages)) return null;
    const { names, counts, pages } = listed as { names: unknown[]; counts: unknown[]; pages: unknown[] };
    if (names.length !== counts.length || names.length !== pages.length || !names.every((name) => typeof name === 'string' && keyParts(name))) return null;
    if (!counts.every((count) => Number.isInteger(count)) || !pages.every((count) => Number.isInteger(count))) return null;
    const numbers = new Map((names as string[]).map((name, at) => [name, at]));
    let of: string | null | undefined;
    // Read once: every status lists them, and at 50k nodes parsing the section again cost about 1 ms a status.
    let claimed: ClaimedTask[] | null | undefined;
    return {
      counts: new Map((names as string[]).map((name, at) => [name, counts[at] as number])),
      page: (key, page) => {
        const at = numbers.get(key);
        if (at === undefined || page >= (pages[at] as number)) return [];
        const parts = keyParts(key)!;
        const entries = this.section(`bucket ${at} ${page}`);
        if (!Array.isArray(entries)) return null;
        const heads = entries.map((entry) => headOfEntry(entry, parts.type, parts.status));
        if (!heads.every((head) => head !== null)) return null;
        // The listings, where the save holds them and they check: a head without one has its node read.
        const listings = this.section(`listing ${at} ${page}`);
        if (Array.isArray(listings) && listings.length === heads.length) {
          for (const [index, head] of (heads as NodeHead[]).entries()) {
            const listing = listingOfEntry(listings[index]);
            if (listing) head.listing = listing;
          }
        }
        // A blocked task's saved blockers, likewise (the status index keeps them only while what they were read from is unchanged).
        const blockers = key === BLOCKED ? this.section(`blockers ${at} ${page}`) : null;
        if (Array.isArray(blockers) && blockers.length === heads.length) {
          for (const [index, head] of (heads as NodeHead[]).entries()) {
            const saved = blockersOfEntry(blockers[index]);
            if (saved) head.blockers = saved;
          }
        }
        return heads as NodeHead[];
      },
      bucketOf: (id) => {
        const position = positionOf(id);
        if (position === undefined) return undefined;
        // `bucket_of` does not name its nodes: the endpoints entry at that position does, so a
        // position the slot table gave wrongly (a hand edit with its checksum recomputed) is not
        // taken for another node's bucket.
        if (endpoints()?.of(id) == null) return null;
        if (of === undefined) {
          const read = this.section('bucket_of');
          of = typeof read === 'string' && read.length === this.count() ? read : null;
        }
        if (of === null) return null;
        const code = of[position];
        return code === undefined ? undefined : ((names[BUCKET_CODES.indexOf(code)] as string | undefined) ?? null);
      },
      claimed: () => {
        if (claimed !== undefined) return claimed;
        const entries = this.section('claims');
        const tasks = Array.isArray(entries) ? entries.map(claimedOfEntry) : null;
        claimed = tasks?.every((task) => task !== null) ? (tasks as ClaimedTask[]) : null;
        return claimed;
      },
      claimsAsWritten: () => {
        const bytes = this.sectionBytes('claims');
        return bytes === null ? null : claimEntriesAsWritten(bytes.toString('utf8'));
      },
      staleClaimAlerts: (cutoff, nowMillis, holder) => {
        const renderer = claimAlerts();
        const bytes = renderer && this.sectionBytes('claims');
        return bytes ? renderer!(bytes, cutoff, nowMillis, holder) : null;
      },
      printed: (key, page) => {
        const at = numbers.get(key);
        if (at === undefined || page >= (pages[at] as number)) return null;
        return printedOfSection(this.section(`printed ${at} ${page}`));
      },
      ages: (key, page) => {
        const at = numbers.get(key);
        if (at === undefined || page >= (pages[at] as number)) return [];
        const entries = this.section(`bucket ${at} ${page}`);
        if (!Array.isArray(entries)) return null;
        const ages = entries.map(agedOfEntry);
        return ages.every((aged) => aged !== null) ? (ages as Aged[]) : null;
      },
    };
  }

  /**
   * Where section `name` is, as the directory says; null when the line has no directory that
   * checks, or the directory no such section within the line. Only the entries asked for are
   * parsed: at 50k nodes the directory holds about 300 (each status bucket's pages), and parsing
   * them all cost a `context` that reads two sections about half a millisecond.
   */
  private sectionBounds(name: string): Bounds | null {
    const directory = this.directoryText();
    if (directory === null) return null;
    let bounds = this.bounds.get(name);
    if (bounds === undefined) {
      bounds = boundsIn(directory, name, HEADS_DIRECTORY_START.length + directory.length, this.size);
      this.bounds.set(name, bounds);
    }
    return bounds;
  }

  /** The directory's text from its brace, checked against the line's `heads_crc32`, holding every section a line of this layout has; null otherwise. */
  private directoryText(): string | null {
    if (this.directory !== undefined) return this.directory;
    this.directory = null;
    const start = this.read(0, Math.min(HEADS_DIRECTORY_START.length, this.size));
    if (start.toString('latin1') !== HEADS_DIRECTORY_START) return null;
    // The directory holds names and digits, no brace: it ends at the first `}`.
    let head = start;
    // About 56 bytes an entry: a dozen sections, each status bucket's pages (two small ones, then
    // one per BUCKET_PAGE heads), and the listing, blockers and printed pages of the groups `status`
    // lists (up to 26, fewer in a small graph): one read, usually (a second read of four times as
    // much, 63 KB at 50k nodes, when it was not).
    const count = this.count();
    for (let length = 56 * (32 + Math.min(LISTED_PAGE_ENTRIES, Math.ceil(count / 100)) + Math.ceil(count / BUCKET_PAGE)); ; length *= 4) {
      head = this.read(0, Math.min(length, this.size, DIRECTORY_LIMIT));
      const end = head.indexOf(0x7d, HEADS_DIRECTORY_START.length);
      if (end >= 0) {
        head = head.subarray(0, end + 1);
        break;
      }
      if (head.length >= Math.min(this.size, DIRECTORY_LIMIT)) return null;
    }
    if (eightHexDigits(crc32(head)) !== this.crc) return null;
    const text = head.toString('latin1', HEADS_DIRECTORY_START.length);
    if (!SECTIONS.every((name) => boundsIn(text, name, head.length, this.size) !== null)) return null;
    this.directory = text;
    return text;
  }

  /** A section's value, parsed, when its checksum holds; null otherwise. */
  private section(name: string): unknown {
    const bytes = this.sectionBytes(name);
    if (bytes === null) return null;
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      return null;
    }
  }

  /** A section's bytes, when its checksum holds; null otherwise (a rewrite copies what it can of them). */
  sectionBytes(name: string): Buffer | null {
    const bounds = this.sectionBounds(name);
    if (!bounds) return null;
    const bytes = this.read(bounds.start, bounds.end);
    return eightHexDigits(crc32(bytes)) === bounds.crc ? bytes : null;
  }

}
