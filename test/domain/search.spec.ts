import { LAZY_COLLECTION, nodeOf, type NodeMap } from '../../domain/node-map.js';
import type { GraphNode } from '../../domain/model.js';
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

describe('domain/search over stored node text', () => {
  /** The fixture's graph with its nodes read through a NodeMap that gives `stored(id)` as each node's stored JSON. */
  function storedAs(fixture: GraphFixture, stored: (id: string) => string): GraphFixture['graph'] {
    const nodes = fixture.graph.nodes as Record<string, GraphNode>;
    const map: NodeMap = {
      [LAZY_COLLECTION]: 'nodes',
      get: (id) => nodes[id],
      has: (id) => id in nodes,
      set: (id, node) => void (nodes[id] = node),
      delete: (id) => void delete nodes[id],
      ids: () => Object.keys(nodes),
      get size() {
        return Object.keys(nodes).length;
      },
      storedText: stored,
    };
    return Object.assign(fixture.graph, { nodes: map });
  }

  function project(): GraphFixture {
    const fixture = new GraphFixture();
    fixture.knowledge('K-tags', { tags: ['x'] }, { tags: ['retry', 'backoff'] });
    fixture.knowledge('K-meta', { tags: ['x'] }, { specific: { meta: { limit: 1000 } } });
    fixture.knowledge('K-plain', { tags: ['x'] });
    return fixture;
  }

  it('skips an item whose stored text lacks a piece of the query, and finds one whose fields hold it', () => {
    const fixture = project();
    const read: string[] = [];
    storedAs(fixture, (id) => (read.push(id), JSON.stringify(nodeOf({ nodes: fixture.graph.nodes }, id))));
    expect(sut(fixture.draft(null), 'retry backoff', false).matches.map((match) => [match.id, match.matched_fields])).to.deep.equal([['K-tags', ['tags']]]);
    expect(read).to.have.members(['K-tags', 'K-meta', 'K-plain']);
  });

  it('judges no text with an escape of a printable character, nor by a number, nor by JSON structure', () => {
    const fixture = project();
    // Stored by hand with escapes (valid JSON, never written by taskdag) and a number in another form.
    storedAs(fixture, (id) => (id === 'K-tags' ? '{"tags":["r\\u0065try","backoff"]}' : id === 'K-meta' ? '{"meta": {"limit": 1e3}}' : '{}'));
    expect(sut(fixture.draft(null), 'retry', false).matches.map((match) => match.id)).to.deep.equal(['K-tags']);
    expect(sut(fixture.draft(null), '1000', false).matches.map((match) => match.id)).to.deep.equal(['K-meta']);
    expect(sut(fixture.draft(null), '"limit":1000', false).matches.map((match) => match.id)).to.deep.equal(['K-meta']);
  });
});
