import { createHash } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { knowledgeSection } from '../../adapters/head-columns.js';
import { knowledgeHoldingBits, trigramBits, trigramFilter, trigramSection } from '../../adapters/knowledge-trigrams.js';
import type { NodeHead } from '../../domain/status-index.js';
import { STATUS_RULES_VERSION } from '../../domain/status.js';
import { seededRandom } from '../support/crash-file-system.js';

function knowledgeHead(id: string): NodeHead {
  return { id, type: 'knowledge', status: 'active', initiative: 'core', domain: null, created_at: '2026-01-02T03:04:05.678Z', claim: null, priority: null, scope: { domains: ['d'], initiatives: [], tags: [], node_ids: [] } };
}

/** The ids of the entries of these lines (one knowledge item each) that the filters let through for `pieces`. */
function through(lines: readonly string[], pieces: readonly string[]): string[] | undefined {
  const heads = lines.map((_, at) => knowledgeHead(`K-${at}`));
  const knowledge = knowledgeSection(heads, heads.map((_, at) => 100 * (at + 1)));
  const trigrams = trigramSection(lines.map((line) => trigramFilter(Buffer.from(line))));
  return knowledgeHoldingBits(knowledge, trigrams, trigramBits(pieces))?.map(({ head }) => head.id);
}


/**
 * How many times `prototype`'s indexOf is called while the filters of 300 knowledge lines are
 * searched for `item-7-` (the ones found checked: K-7 among fewer than five).
 */
function indexOfCallsFindingItem7(prototype: { indexOf: unknown }): number {
  const heads = Array.from({ length: 300 }, (_, at) => knowledgeHead(`K-${at}`));
  const knowledge = knowledgeSection(heads, heads.map((_, at) => 100 * (at + 1)));
  const trigrams = trigramSection(heads.map((_, at) => trigramFilter(Buffer.from(`item-${at}-of-plain-words`))));
  const search = sinon.spy(prototype as { indexOf: (...args: unknown[]) => number }, 'indexOf');
  try {
    const found = knowledgeHoldingBits(knowledge, trigrams, trigramBits(['item-7-']))?.map(({ head }) => head.id);
    expect(found).to.include('K-7').and.have.length.below(5);
    return search.callCount;
  } finally {
    search.restore();
  }
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

  it("find the entries' bounds without a Buffer search per entry (a binding's set-up each: 50M instructions for 5,076 entries)", () => {
    expect(indexOfCallsFindingItem7(Buffer.prototype)).to.be.below(10);
  });

  it("split the section at its tabs at once and test every filter for one run before the others, not a tab search and a call per entry (12 M instructions of a one-match search at 10k nodes)", () => {
    expect(indexOfCallsFindingItem7(String.prototype)).to.be.below(10);
  });

  it('say nothing (null: every line is read) for pieces shorter than three characters, or sections that do not match', () => {
    const heads = [knowledgeHead('K-0'), knowledgeHead('K-1')];
    const knowledge = knowledgeSection(heads, [100, 200]);
    const filters = ['alpha beta', 'gamma'].map((line) => trigramFilter(Buffer.from(line)));
    const trigrams = trigramSection(filters);
    expect(trigramBits(['ab', 'c'])).to.deep.equal([]);
    expect(knowledgeHoldingBits(knowledge, trigrams, trigramBits(['alpha']))?.map(({ head }) => head.id)).to.deep.equal(['K-0']);
    // One filter short of the entries, or entries not after tabs.
    expect(knowledgeHoldingBits(knowledge, trigramSection(filters.slice(1)), trigramBits(['alpha']))).to.equal(null);
    expect(knowledgeHoldingBits(Buffer.from(JSON.stringify(JSON.parse(knowledge.toString('utf8')))), trigrams, trigramBits(['alpha']))).to.equal(null);
  });

  it('are those of the rules version that gates them: a filter that changes bumps STATUS_RULES_VERSION, so files saved before are not misread', () => {
    // A file keeps its filters across releases; read under other bits, they would rule out lines
    // that hold the query. Change this pair only together: the new filter's digest and a new version.
    const filter = trigramFilter(Buffer.from('"K-1":{"title":"Zebrafish Care","body":"Keep the tank at 28 C; see docs/fish.md"}'));
    const digest = createHash('sha256').update(filter).digest('hex').slice(0, 16);
    expect({ rules: STATUS_RULES_VERSION, filter: digest }).to.deep.equal({ rules: 2, filter: 'f4ef0140491763d3' });
  });
});
