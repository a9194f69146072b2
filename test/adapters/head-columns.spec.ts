import { expect } from 'chai';
import sinon from 'sinon';
import { knowledgeHeadsOf, knowledgeSection, scopedKnowledge } from '../../adapters/head-columns.js';
import type { NodeHead } from '../../domain/status-index.js';

/** A knowledge head scoped as given, of initiative `core`. */
function knowledgeHead(id: string, scope: Partial<NonNullable<NodeHead['scope']>>): NodeHead {
  return { id, type: 'knowledge', status: 'active', initiative: 'core', domain: null, created_at: '2026-01-02T03:04:05.678Z', claim: null, priority: null, scope: { domains: [], initiatives: [], tags: [], node_ids: [], ...scope } };
}

describe('the knowledge section read by scope value', () => {
  const heads = [knowledgeHead('K-1', { tags: ['tag-x'] }), knowledgeHead('K-2', { domains: ['billing'] }), knowledgeHead('K-3', { tags: ['tag-y'], node_ids: ['T-9'] })];
  const ends = [100, 200, 300];
  const section = knowledgeSection(heads, ends);

  it('finds the entries holding a value, with where their lines are', () => {
    const found = scopedKnowledge(section, ['tag-x', 'T-9']);
    expect(found?.map(({ head, line }) => [head.id, line])).to.deep.equal([
      ['K-1', { key: 0, end: 100, position: 0 }],
      ['K-3', { key: 202, end: 300, position: 2 }],
    ]);
    expect(scopedKnowledge(section, ['nowhere'])).to.deep.equal([]);
  });

  it("parses only the entries whose scope holds a value, not those whose own domain or initiative is that value", () => {
    const own = [{ ...knowledgeHead('K-1', { tags: ['tag-x'] }), domain: 'billing', initiative: 'growth' }, knowledgeHead('K-2', { domains: ['billing'], initiatives: ['growth'] })];
    const found = scopedKnowledge(knowledgeSection(own, [100, 200]), ['billing', 'growth']);
    expect(found?.map(({ head }) => head.id)).to.deep.equal(['K-2']);
  });

  it('parses the entries it found at once, not one parse each', () => {
    const parse = sinon.spy(JSON, 'parse');
    const found = scopedKnowledge(section, ['tag-x', 'billing', 'T-9']);
    expect(found?.map(({ head }) => head.id)).to.deep.equal(['K-1', 'K-2', 'K-3']);
    expect(parse.callCount).to.equal(1);
  });

  it('answers null (read the section whole) when the entries are not after tabs or the section holds an escape', () => {
    const untabbed = Buffer.from(JSON.stringify(JSON.parse(section.toString('utf8'))));
    expect(scopedKnowledge(untabbed, ['tag-x'])).to.equal(null);
    const escaped = Buffer.from(section.toString('utf8').replace('"tag-x"', '"tag\\u002dx"'));
    expect(scopedKnowledge(escaped, ['tag-x'])).to.equal(null);
  });

  it('takes an entry only when every item has its type: each one wrong makes the section unusable', () => {
    const scope = { domains: ['d'], initiatives: [], tags: ['t'], node_ids: [] };
    const entry = ['K-1', 'active', 'core', null, '2026-01-02T03:04:05.678Z', scope, 0, 100, 0];
    expect(knowledgeHeadsOf([entry])?.map(({ head, line }) => [head.id, head.scope, line])).to.deep.equal([['K-1', scope, { key: 0, end: 100, position: 0 }]]);
    // An entry of a file written before the line spans: the head, no line.
    expect(knowledgeHeadsOf([entry.slice(0, 6)])?.map(({ line }) => line)).to.deep.equal([null]);
    const wrong: unknown[][] = [
      [1, 'active', 'core', null, 'at', scope, 0, 100, 0],
      ['K-1', null, 'core', null, 'at', scope, 0, 100, 0],
      ['K-1', 'active', 2, null, 'at', scope, 0, 100, 0],
      ['K-1', 'active', 'core', 3, 'at', scope, 0, 100, 0],
      ['K-1', 'active', 'core', null, 4, scope, 0, 100, 0],
      ['K-1', 'active', 'core', null, 'at', { ...scope, tags: ['t', 5] }, 0, 100, 0],
      ['K-1', 'active', 'core', null, 'at', { ...scope, node_ids: 'T-1' }, 0, 100, 0],
      ['K-1', 'active', 'core', null, 'at', scope, 100, 100, 0],
      ['K-1', 'active', 'core', null, 'at', scope, -1, 100, 0],
      ['K-1', 'active', 'core', null, 'at', scope, 0, 100, 'first'],
      ['K-1', 'active', 'core', null, 'at', scope, 0, 100],
    ];
    for (const malformed of wrong) expect(knowledgeHeadsOf([entry, malformed]), JSON.stringify(malformed)).to.equal(null);
  });
});
