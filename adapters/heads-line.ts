import type { NodeId } from '../domain/model.js';
import type { SavedEdges } from '../domain/graph-index.js';
import type { NodeHead } from '../domain/status-index.js';
import { crc32 } from './crc32.js';
import { SavedEndpoints } from './edge-endpoints.js';
import { headsOf, knowledgeHeadsOf } from './head-columns.js';

/**
 * The checkpoint's heads line (line 5) in sections, so that a reader takes only what it needs:
 *
 *   "heads":{"sections":{<directory>},"columns":{...},"knowledge":[...],"endpoints":[...]}},
 *
 * - `columns`: every node's head by column (head-columns.ts): `status`, a checkpoint rewrite;
 * - `knowledge`: the knowledge heads alone: `search`, and `context`/`take` matching scopes;
 * - `endpoints`: the edges by endpoint (edge-endpoints.ts): every command that looks at a few
 *   nodes' edges (`context`, `take`, the nodes a ledger tail changed), or `null`.
 *
 * The directory gives each section's bytes (from the line's start) and CRC-32 (zeros for the
 * endpoints, whose entries carry their own), at a fixed width so that it is written before the
 * sections are; the checkpoint's `heads_crc32` is the CRC-32 of the
 * line up to the directory's end. A section is used only when its checksum holds (the endpoints'
 * entries carry their own, being read one at a time); otherwise it is derived again from the nodes.
 */
export const SECTIONS = ['columns', 'knowledge', 'endpoints'] as const;
type Section = (typeof SECTIONS)[number];

export const HEADS_DIRECTORY_START = '"heads":{"sections":';
const OFFSET_DIGITS = 10;

function directoryOf(bounds: Record<Section, { start: number; end: number; crc: string }>): string {
  const entry = ({ start, end, crc }: { start: number; end: number; crc: string }) => `["${digits(start)}","${digits(end)}","${crc}"]`;
  return `{${SECTIONS.map((name) => `"${name}":${entry(bounds[name])}`).join(',')}}`;
}

function digits(value: number): string {
  return String(value).padStart(OFFSET_DIGITS, '0');
}

function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
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

/** The heads line of these sections (newline included), and its directory's CRC-32 (`heads_crc32`). */
export function* headsLine(sections: Record<Section, Buffer>): Generator<void, { line: Buffer; crc: string }> {
  const placeholder = { start: 0, end: 0, crc: '00000000' };
  let offset = HEADS_DIRECTORY_START.length + directoryOf({ columns: placeholder, knowledge: placeholder, endpoints: placeholder }).length;
  const pieces: Buffer[] = [];
  const bounds = {} as Record<Section, { start: number; end: number; crc: string }>;
  for (const name of SECTIONS) {
    const key = Buffer.from(`,"${name}":`);
    const start = offset + key.length;
    // The endpoints are read an entry at a time, each with its own checksum: the section has none (zeros).
    const crc = name === 'endpoints' ? 0 : yield* crcInSlices(sections[name]);
    bounds[name] = { start, end: start + sections[name].length, crc: hex(crc) };
    pieces.push(key, sections[name]);
    offset = bounds[name].end;
  }
  const head = Buffer.from(`${HEADS_DIRECTORY_START}${directoryOf(bounds)}`);
  return { line: Buffer.concat([head, ...pieces, Buffer.from('}},\n')]), crc: hex(crc32(head)) };
}

/**
 * The heads a checkpoint saved, read from its heads line as they are asked for: `read` gives bytes
 * of the line (offsets from its start, `size` its length without the newline), `crc` is the
 * checkpoint's `heads_crc32`. A line written before the sections (one CRC-32 for the whole line,
 * the columns alone) is read whole. Each call answers null when what it needs cannot be used.
 */
export class SavedHeadsLine {
  /** The directory, once read: null when the line has none that checks (or is of the older form). */
  private directory: Record<Section, { start: number; end: number; crc: string }> | null | undefined;
  private legacy = false;

  constructor(
    private readonly read: (start: number, end: number) => Buffer,
    private readonly size: number,
    private readonly crc: string,
    /** The checkpoint's node ids in file order (its id list, parsed when first asked for), and how many there are. */
    private readonly ids: () => readonly NodeId[],
    private readonly count: () => number,
  ) {}

  /** Every node's head, in the order of the ids. */
  all(): NodeHead[] | null {
    if (this.isLegacy()) return this.legacyHeads();
    const columns = this.section('columns');
    return columns === null ? null : headsOf(columns, this.ids());
  }

  /** The knowledge heads alone. */
  knowledge(): NodeHead[] | null {
    if (this.isLegacy()) return this.legacyHeads()?.filter((head) => head.scope !== null) ?? null;
    const knowledge = this.section('knowledge');
    return knowledge === null ? null : knowledgeHeadsOf(knowledge);
  }

  /** The edges by endpoint, or null when the line has none (`positionOf`: a node's position among the ids). */
  endpoints(positionOf: (id: NodeId) => number | undefined): SavedEdges | null {
    const directory = this.sections();
    if (!directory) return null;
    const { start, end } = directory.endpoints;
    if (end - start < 4 || this.read(start, start + 2).toString('latin1') !== '["') return null;
    return new SavedEndpoints((from, to) => this.read(start + from, start + Math.min(to, end - start)), end - start, this.count(), positionOf);
  }

  private isLegacy(): boolean {
    this.sections();
    return this.legacy;
  }

  private sections(): Record<Section, { start: number; end: number; crc: string }> | null {
    if (this.directory !== undefined) return this.directory;
    this.directory = null;
    const placeholder = { start: 0, end: 0, crc: '00000000' };
    const length = HEADS_DIRECTORY_START.length + directoryOf({ columns: placeholder, knowledge: placeholder, endpoints: placeholder }).length;
    const head = this.read(0, Math.min(length, this.size));
    if (head.toString('latin1', 0, HEADS_DIRECTORY_START.length) !== HEADS_DIRECTORY_START) {
      this.legacy = true;
      return null;
    }
    if (head.length !== length || hex(crc32(head)) !== this.crc) return null;
    try {
      const parsed = JSON.parse(head.toString('latin1', HEADS_DIRECTORY_START.length)) as Record<string, [string, string, string]>;
      const bounds = {} as Record<Section, { start: number; end: number; crc: string }>;
      for (const name of SECTIONS) {
        const [start, end, crc] = parsed[name]!;
        bounds[name] = { start: Number(start), end: Number(end), crc };
        if (!(bounds[name].start >= length && bounds[name].start <= bounds[name].end && bounds[name].end <= this.size)) return null;
      }
      this.directory = bounds;
    } catch {
      return null;
    }
    return this.directory;
  }

  /** A section's value, parsed, when its checksum holds; null otherwise. */
  private section(name: Section): unknown {
    const bounds = this.sections()?.[name];
    if (!bounds) return null;
    const bytes = this.read(bounds.start, bounds.end);
    if (hex(crc32(bytes)) !== bounds.crc) return null;
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      return null;
    }
  }

  /** The heads of a line in the older form: one CRC-32 for the line, the columns alone. */
  private legacyHeads(): NodeHead[] | null {
    const line = this.read(0, this.size);
    if (hex(crc32(line)) !== this.crc) return null;
    try {
      const text = line.toString('utf8');
      const parsed = JSON.parse(`{${text.slice(0, text.endsWith('},') ? -2 : text.length)}}`) as Record<string, unknown>;
      return headsOf(parsed.heads, this.ids());
    } catch {
      return null;
    }
  }
}
