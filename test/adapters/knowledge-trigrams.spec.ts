import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { knowledgeSection } from '../../adapters/head-columns.js';
import { knowledgeHoldingBits, trigramBits, trigramFilter, trigramRowsSection } from '../../adapters/knowledge-trigrams.js';
import type { NodeHead } from '../../domain/status-index.js';
import { STATUS_RULES_VERSION } from '../../domain/status.js';
import { seededRandom } from '../support/crash-file-system.js';

function knowledgeHead(id: string): NodeHead {
  return { id, type: 'knowledge', status: 'active', initiative: 'core', domain: null, created_at: '2026-01-02T03:04:05.678Z', claim: null, priority: null, scope: { domains: ['d'], initiatives: [], tags: [], node_ids: [] } };
}

/** The knowledge section and the rows section of these lines (one knowledge item each, `K-<n>`). */
function sections(lines: readonly string[]): { knowledge: Buffer; rows: Buffer } {
  const heads = lines.map((_, at) => knowledgeHead(`K-${at}`));
  const knowledge = knowledgeSection(heads, heads.map((_, at) => 100 * (at + 1)));
  return { knowledge, rows: trigramRowsSection(lines.map((line) => trigramFilter(Buffer.from(line))), knowledge) };
}

/** The ids of the entries the rows let through for `pieces`, and how many bytes of each section were read (in how many reads). */
function reading({ knowledge, rows }: { knowledge: Buffer; rows: Buffer }, pieces: readonly string[]) {
  const read = { rows: { bytes: 0, reads: 0 }, knowledge: { bytes: 0, reads: 0 } };
  const from = (bytes: Buffer, count: { bytes: number; reads: number }) => (start: number, end: number) => {
    count.bytes += end - start;
    count.reads += 1;
    return bytes.subarray(start, end);
  };
  const found = knowledgeHoldingBits(from(rows, read.rows), rows.length, from(knowledge, read.knowledge), knowledge.length, trigramBits(pieces));
  return { ids: found?.map(({ head }) => head.id), read };
}

function through(lines: readonly string[], pieces: readonly string[]): string[] | undefined {
  return reading(sections(lines), pieces).ids;
}

/** `bytes` with the character at `at` changed to another of the base64url alphabet (or digit). */
function flipped(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at] === 0x41 ? 0x42 : copy[at] === 0x30 ? 0x31 : 0x41;
  return copy;
}

describe("the knowledge lines' trigram filters", () => {
  it('let through every line that holds a piece, lowercased, and rule out nearly every other', () => {
    const random = seededRandom(28);
    const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ "';
    const lines = Array.from({ length: 200 }, () => Array.from({ length: 50 + Math.floor(random() * 400) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    for (let trial = 0; trial < 300; trial++) {
      const line = Math.floor(random() * lines.length);
      const start = Math.floor(random() * (lines[line]!.length - 8));
      const piece = lines[line]!.slice(start, start + 3 + Math.floor(random() * 6)).toLowerCase();
      if (!/^[\x21\x23-\x2b\x2d-\x39\x3b-\x5a\x5e-\x7a\x7c\x7e]+$/.test(piece)) continue;
      const holding = lines.flatMap((text, at) => (text.toLowerCase().includes(piece) ? [`K-${at}`] : []));
      const found = through(lines, [piece])!;
      expect(found, piece).to.include.members(holding);
    }
    // Ten characters of a few hundred-character lines: a piece its line does not hold is rarely let through.
    expect(through(lines, ['no-such-0123']) ?? []).to.have.length.below(3);
  });

  it('lowercase a line as search does, beyond ASCII: a Kelvin sign is a k, and a dotted capital I an i and a combining dot', () => {
    expect(through(['Temperature 300\u212A'], ['300k'])).to.deep.equal(['K-0']);
    expect(through(['\u0130stanbul office'], ['stanbul'])).to.deep.equal(['K-0']);
    expect(through(['plain words'], ['300k'])).to.deep.equal([]);
  });

  it('let every query through a line whose escapes store a printable character otherwise, as search judges no such text', () => {
    expect(through(['{"title":"\\u0041pple"}'], ['apple'])).to.deep.equal(['K-0']);
    expect(through(['{"title":"\\u0041pple"}'], ['zebra'])).to.deep.equal(['K-0']);
  });

  it("read the rows of the query's runs and the entries they let through, not the sections whole", () => {
    const lines = Array.from({ length: 300 }, (_, at) => `item-${at}-of-plain-words`);
    const both = sections(lines);
    const { ids, read } = reading(both, ['item-7-']);
    expect(ids).to.include('K-7').and.have.length.below(5);
    // The count, one row of 50 characters and its checksum per run (six runs), then a table entry of 24 bytes and the entry (about 120 bytes) per item let through.
    expect(read.rows.bytes).to.be.below(8 + 6 * (8 + 50) + 24 * 5 + 1).and.below(both.rows.length / 10);
    expect(read.knowledge.bytes).to.be.below(5 * 150).and.below(both.knowledge.length / 10);
  });

  it('read the entry table and the knowledge section at once when many entries are let through, and find the same as entry by entry', () => {
    const lines = Array.from({ length: 300 }, (_, at) => `item-${at}-of-plain-words`);
    const both = sections(lines);
    const { ids, read } = reading(both, ['plain']);
    expect(ids).to.have.length(300);
    expect(read.knowledge).to.deep.equal({ bytes: both.knowledge.length, reads: 1 });
    expect(read.rows.reads).to.equal(1 + 3 + 1);
    expect(reading(both, ['item-1']).ids).to.deep.equal(lines.flatMap((line, at) => (line.includes('item-1') ? [`K-${at}`] : [])));
  });

  it('say nothing (null: every line is read) for pieces shorter than three characters, or a row, an entry or a table entry that does not check', () => {
    const both = sections(['alpha beta', 'gamma']);
    expect(trigramBits(['ab', 'c'])).to.deep.equal([]);
    expect(reading(both, ['alpha']).ids).to.deep.equal(['K-0']);
    const rowOf = (piece: string) => 9 + trigramBits([piece])[0]! * (8 + 1);
    const knowledgeEntry = both.knowledge.indexOf('"K-0"');
    const tableEntry = both.rows.length - 1 - 2 * 24;
    for (const [name, damaged] of [
      ['a row', { ...both, rows: flipped(both.rows, rowOf('alp') + 8) }],
      ["a row's checksum", { ...both, rows: flipped(both.rows, rowOf('alp')) }],
      ['an entry', { ...both, knowledge: flipped(both.knowledge, knowledgeEntry + 2) }],
      ['a table entry', { ...both, rows: flipped(both.rows, tableEntry + 7) }],
      ['the count', { ...both, rows: flipped(both.rows, 8) }],
      ['one filter short', sections(['alpha beta'])],
    ] as const) {
      const section = name === 'one filter short' ? { knowledge: both.knowledge, rows: damaged.rows } : damaged;
      expect(reading(section, ['alpha']).ids, name).to.equal(undefined);
    }
  });

  it('are those of the rules version that gates them: a filter that changes bumps STATUS_RULES_VERSION, so files saved before are not misread', () => {
    // A file keeps its filters across releases; read under other bits, they would rule out lines
    // that hold the query. Change this pair only together: the new filter's digest and a new version.
    // Digested as the filters were first written, six bits a base64url character, so the bits are seen unchanged since.
    const sextets = trigramFilter(Buffer.from('"K-1":{"title":"Zebrafish Care","body":"Keep the tank at 28 C; see docs/fish.md"}'));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const filter = Array.from(sextets, (sextet) => alphabet[sextet]).join('');
    const digest = createHash('sha256').update(filter).digest('hex').slice(0, 16);
    expect({ rules: STATUS_RULES_VERSION, filter: digest }).to.deep.equal({ rules: 2, filter: 'f4ef0140491763d3' });
  });
});
