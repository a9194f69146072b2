import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { crc32 } from '../../adapters/crc32.js';
import { bucketOf, knowledgeScopesSection, scopedLines } from '../../adapters/knowledge-scopes.js';
import type { KnowledgeScope } from '../../domain/model.js';
import type { NodeHead } from '../../domain/status-index.js';
import { STATUS_RULES_VERSION } from '../../domain/status.js';
import { seededRandom } from '../support/crash-file-system.js';

function head(id: string, scope: KnowledgeScope | null): NodeHead {
  return { id, type: scope ? 'knowledge' : 'task', status: 'active', initiative: 'core', domain: null, created_at: '2026-01-02T03:04:05.678Z', claim: null, priority: null, scope };
}

/** Where the nodes' JSON ends (from the first node line), as a checkpoint lists them: 100 bytes a node. */
const endsOf = (heads: readonly NodeHead[]) => heads.map((_, at) => 100 * at + 98);
/** The lines' checksums, one made-up value a node. */
const crcsOf = (heads: readonly NodeHead[]) => heads.map((_, at) => (0x9e3779b1 * (at + 1)) >>> 0);

/** The ids `scopedLines` finds for `values` (in every list, or in those of `target`) in `section`, sorted, or null. */
function found(section: Buffer, values: readonly string[], target: KnowledgeScope = { node_ids: [...values], tags: [...values], domains: [...values], initiatives: [...values] }): string[] | null {
  const lines = scopedLines((start, end) => section.subarray(start, end), section.length, target);
  return lines === null ? null : lines.map(({ id }) => id).sort();
}

describe('the knowledge by scope value (knowledge_scopes)', () => {
  it("finds every knowledge item whose scope names a value, in any list, and no other, with its line's span", () => {
    const random = seededRandom(28);
    const words = ['billing', 'auth', 'ui', 'api', 'T-1', 'T-2', 'init-0', 'init-1', 'ünïcode "quoted"', 'back\\slash'];
    const some = () => words.filter(() => random() < 0.2);
    const heads = Array.from({ length: 300 }, (_, at) => head(`${at % 5 === 0 ? 'T' : 'K'}-${at}`, at % 5 === 0 ? null : { domains: some(), initiatives: some(), tags: some(), node_ids: some() }));
    const section = knowledgeScopesSection(heads, endsOf(heads), crcsOf(heads));
    expect(() => JSON.parse(section.toString('utf8'))).to.not.throw();
    for (let trial = 0; trial < 50; trial++) {
      const values = [...new Set(words.filter(() => random() < 0.3))];
      const naming = heads.filter(({ scope }) => scope && Object.values(scope).some((list: string[]) => list.some((value) => values.includes(value)))).map(({ id }) => id).sort();
      expect(found(section, values), values.join()).to.deep.equal(naming);
    }
    const lines = scopedLines((start, end) => section.subarray(start, end), section.length, { node_ids: ['ui'], tags: ['ui'], domains: ['ui'], initiatives: ['ui'] })!;
    const position = heads.findIndex(({ scope }) => scope?.domains.includes('ui') || scope?.tags.includes('ui') || scope?.initiatives.includes('ui') || scope?.node_ids.includes('ui'));
    expect(lines.find(({ id }) => id === heads[position]!.id)!.line).to.deep.equal({ key: position === 0 ? 0 : 100 * (position - 1) + 100, end: 100 * position + 98, position, crc: crcsOf(heads)[position] });
    expect(found(section, ['no such value'])).to.deep.equal([]);
    // A value is matched in the lists it is asked for in only: a tag `api` is not a domain `api`.
    for (const [list, other] of [['tags', 'domains'], ['domains', 'initiatives'], ['node_ids', 'tags'], ['initiatives', 'node_ids']] as const) {
      const target: KnowledgeScope = { node_ids: [], tags: [], domains: [], initiatives: [], [list]: ['api', 'T-1'] };
      const naming = heads.filter(({ scope }) => scope && scope[list].some((value) => value === 'api' || value === 'T-1')).map(({ id }) => id).sort();
      expect(found(section, [], target), list).to.deep.equal(naming);
      expect(naming.length, list).to.be.above(0);
      expect(naming, list).to.not.deep.equal(heads.filter(({ scope }) => scope && scope[other].includes('api')).map(({ id }) => id).sort());
    }
  });

  it('answers nothing (null) from a bucket that does not check: a byte changed, a table entry moved, a section cut or of another shape', () => {
    const heads = Array.from({ length: 40 }, (_, at) => head(`K-${at}`, { domains: [`d-${at % 7}`], initiatives: [], tags: [`t-${at % 3}`], node_ids: [] }));
    const section = knowledgeScopesSection(heads, endsOf(heads), crcsOf(heads));
    const text = section.toString('latin1');
    expect(found(section, ['d-3'])).to.have.length(6);
    // Every bucket's bytes in turn: a value renamed inside one makes that bucket fail, and only a lookup reading it sees it.
    const renamed = Buffer.from(text.replace('"d-3"', '"d-X"'), 'latin1');
    expect(found(renamed, ['d-3'])).to.equal(null);
    // The first two table entries swapped: each bucket's checksum is seeded with its number.
    const table = text.slice(10, 10 + 48);
    const swapped = Buffer.from(text.slice(0, 10) + table.slice(24) + table.slice(0, 24) + text.slice(58), 'latin1');
    const every = ['d-0', 'd-1', 'd-2', 'd-3', 'd-4', 'd-5', 'd-6', 't-0', 't-1', 't-2'];
    expect(found(section, every)).to.have.length(40);
    expect(found(swapped, every), 'swapped').to.equal(null);
    expect(found(section.subarray(0, section.length - 30), every), 'cut').to.equal(null);
    expect(found(Buffer.from('[]'), ['d-3'])).to.equal(null);
    expect(found(Buffer.from(JSON.stringify(['zzzzzzzz'])), ['d-3'])).to.equal(null);
  });

  it('place values in buckets as the rules version that gates them does: a placement that changes bumps STATUS_RULES_VERSION, so files saved before are not misread', () => {
    // A file keeps its section across releases; looked up under another hash or bucket count, a
    // value would be sought in the wrong bucket and its items missed (a bucket of another shape
    // is not read at all). Change this pair only together: the new placement's digest and a new version.
    const placement = ['billing', 'auth', 'T-9', 'init-2', 'ünïcode', ''].map((value) => [1, 2, 7, 64, 1000].map((count) => bucketOf(value, count)));
    const digest = createHash('sha256').update(JSON.stringify(placement)).digest('hex').slice(0, 16);
    expect({ rules: STATUS_RULES_VERSION, placement: digest }).to.deep.equal({ rules: 2, placement: 'a9208a3112186a70' });
  });

  it('read no bucket of an earlier shape (flat, or without the lists): the reader answers nothing and the knowledge section is read', () => {
    const hex = (value: number) => value.toString(16).padStart(8, '0');
    const seed = Buffer.alloc(8);
    seed.writeUInt32BE(1, 4);
    const bucket = Buffer.from(JSON.stringify([['d-1', 'K-1', 0, 98, 0]]));
    const section = (body: Buffer) => Buffer.from(`["${hex(1)}${hex(2 + 8 + 24 + 2)}${hex(body.length)}${hex(crc32(body, crc32(seed)))}",${body.toString()}]`);
    // The same bucket in this shape is read: what refuses the earlier ones is their shape, not their checksum.
    expect(found(section(Buffer.from(JSON.stringify([['d-1', ['K-1', 0, 98, 0, 7, 4]]]))), ['d-1'])).to.deep.equal(['K-1']);
    expect(found(section(bucket), ['d-1'])).to.equal(null);
    // The shape before the lists: each item's line and checksum, not the lists that name the value.
    expect(found(section(Buffer.from(JSON.stringify([['d-1', ['K-1', 0, 98, 0, 7]]]))), ['d-1'])).to.equal(null);
  });
});
