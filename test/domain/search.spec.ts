import { nodeOf } from '../../domain/node-map.js';
import { expect } from 'chai';
import * as lifecycle from '../../domain/lifecycle.js';
import { searchKnowledge as sut } from '../../domain/search.js';
import { GraphFixture } from '../support/graph-fixture.js';

describe('domain/search', () => {
  function project(): GraphFixture {
    const fixture = new GraphFixture();
    fixture.task('T-money', {});
    fixture.knowledge('K-body', { tags: ['x'] }, { specific: { mitigation: 'Store integer CENTS' } });
    fixture.knowledge('K-title', { tags: ['x'] }, { domain: 'billing', tags: ['money'], specific: { meta: { unit: 'cents' } } });
    nodeOf(fixture.graph, 'K-title')!.title = 'Cents everywhere';
    fixture.knowledge('K-gone', { tags: ['x'] });
    nodeOf(fixture.graph, 'K-gone')!.body = 'cents, the old way';
    fixture.as('bob', (draft) => lifecycle.deprecateKnowledge(draft, 'K-gone', 'old'));
    return fixture;
  }

  it('finds active knowledge only, case-insensitively, over every listed field; earlier-field matches first', () => {
    const fixture = project();
    const result = sut(fixture.draft(null), 'cents', false);
    expect(result.count).to.equal(2);
    expect(result.matches.map((match) => [match.id, match.matched_fields])).to.deep.equal([
      ['K-title', ['title', 'meta']],
      ['K-body', ['mitigation']],
    ]);
    expect(result.matches[0]).to.deep.equal({
      id: 'K-title',
      kind: 'knowledge',
      title: 'Cents everywhere',
      initiative: 'demo',
      domain: 'billing',
      status: 'active',
      matched_fields: ['title', 'meta'],
      snippet: 'Cents everywhere',
    });
  });

  it('--all includes deprecated knowledge; tasks never match', () => {
    const fixture = project();
    expect(sut(fixture.draft(null), 'CENTS', true).matches.map((match) => match.id)).to.deep.equal(['K-title', 'K-gone', 'K-body']);
    expect(sut(fixture.draft(null), 'T-money', true).count).to.equal(0);
  });

  it('matches ids, domains, tags and refs too', () => {
    const fixture = project();
    expect(sut(fixture.draft(null), 'k-bo', false).matches[0]!.matched_fields).to.deep.equal(['id', 'title', 'body']);
    expect(sut(fixture.draft(null), 'billing', false).matches[0]!.matched_fields).to.deep.equal(['domain']);
    expect(sut(fixture.draft(null), 'money', false).matches[0]!.matched_fields).to.deep.equal(['tags']);
    nodeOf(fixture.graph, 'K-body')!.refs = ['docs/ADR-7.md'];
    expect(sut(fixture.draft(null), 'adr-7', false).matches[0]!.matched_fields).to.deep.equal(['refs']);
  });

  it('the snippet shows the match with context, cut with an ellipsis', () => {
    const fixture = new GraphFixture();
    fixture.knowledge('K', { tags: ['x'] });
    nodeOf(fixture.graph, 'K')!.body = `${'a'.repeat(100)} needle ${'b'.repeat(100)}`;
    const { snippet } = sut(fixture.draft(null), 'needle', false).matches[0]!;
    expect(snippet).to.equal(`…${'a'.repeat(39)} needle ${'b'.repeat(39)}…`);
  });
});
