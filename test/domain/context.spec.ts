import { expect } from 'chai';
import { nodeContext } from '../../domain/context.js';
import * as lifecycle from '../../domain/lifecycle.js';
import { GraphFixture } from '../support/graph-fixture.js';

const HOUR = 3_600_000;

describe('domain/context', () => {
  it('holds every field of spec 4.4 for a claimed task', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    fixture.as('alice', (draft) => lifecycle.take(draft, 'T'));
    fixture.advance(HOUR);
    const sut = nodeContext(fixture.draft('alice'), fixture.node('T'), fixture.now, { agent: 'alice', staleMs: 2 * HOUR });
    expect(Object.keys(sut)).to.deep.equal(['node', 'derived_status', 'can_claim', 'revision', 'claim', 'blocking', 'knowledge', 'informing', 'alerts', 'allowed_actions']);
    expect(sut).to.deep.include({ derived_status: 'in_progress', can_claim: false, revision: 2, claim: { by: 'alice', at: '2030-01-01T00:00:00.000Z', token: 2, stale: false }, alerts: [] });
    expect(sut.allowed_actions).to.deep.equal(['release', 'submit', 'cancel', 'add-note', 'update']);
  });

  it('claim.stale and a STALE_CLAIM alert once the claim is as old as --stale-ms', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    fixture.as('alice', (draft) => lifecycle.take(draft, 'T'));
    fixture.advance(HOUR);
    const sut = nodeContext(fixture.draft(null), fixture.node('T'), fixture.now, { agent: null, staleMs: HOUR });
    expect(sut.claim!.stale).to.equal(true);
    expect(sut.alerts).to.deep.equal([
      { kind: 'STALE_CLAIM', node: 'T', claimed_by: 'alice', claimed_at: '2030-01-01T00:00:00.000Z', age_ms: HOUR, message: sut.alerts[0]!.message },
    ]);
  });

  it('blocking: every blocker inline with its derived status and whether it is satisfied', () => {
    const fixture = new GraphFixture();
    fixture.gate('G');
    fixture.task('A');
    fixture.task('T', { blocked_by: ['G', 'A'] });
    fixture.as('bob', (draft) => lifecycle.resolve(draft, 'G', 'x', 'y'));
    const sut = nodeContext(fixture.draft(null), fixture.node('T'), fixture.now, { agent: null, staleMs: HOUR });
    expect(sut.blocking.map((entry) => [entry.node.id, entry.derived_status, entry.satisfied])).to.deep.equal([
      ['G', 'resolved', true],
      ['A', 'ready', false],
    ]);
    expect(sut.blocking[0]!.node).to.deep.equal(fixture.node('G'));
    expect(sut).to.deep.include({ derived_status: 'blocked', can_claim: false });
  });

  it('SUPERSEDED_BLOCKER when a blocker was superseded, with its successors and satisfaction', () => {
    const fixture = new GraphFixture();
    fixture.gate('G-old');
    fixture.task('T', { blocked_by: ['G-old'] });
    fixture.gate('G-new', { supersedes: 'G-old' });
    const sut = nodeContext(fixture.draft(null), fixture.node('T'), fixture.now, { agent: null, staleMs: HOUR });
    expect(sut.alerts).to.have.length(1);
    expect(sut.alerts[0]).to.deep.include({ kind: 'SUPERSEDED_BLOCKER', node: 'T', blocker: 'G-old', superseded_by: ['G-new'], satisfied: false });
  });

  it('knowledge: active matches by specificity (node ids, tags, domains, initiatives); deprecated ones raise KNOWLEDGE_DEPRECATED_SOON', () => {
    const fixture = new GraphFixture();
    fixture.task('T', { tags: ['api'], domain: 'backend' });
    fixture.knowledge('K-init', { initiatives: ['demo'] });
    fixture.knowledge('K-domain', { domains: ['backend'] });
    fixture.knowledge('K-tag', { tags: ['api', 'other'] });
    fixture.knowledge('K-id', { node_ids: ['T'] });
    fixture.knowledge('K-tag-and-domain', { tags: ['api'], domains: ['backend'] });
    fixture.knowledge('K-elsewhere', { tags: ['ui'] });
    fixture.knowledge('K-old', { tags: ['api'] });
    fixture.knowledge('K-new', { tags: ['zzz'] }, { supersedes: 'K-old' });
    const sut = nodeContext(fixture.draft(null), fixture.node('T'), fixture.now, { agent: null, staleMs: HOUR });
    expect(sut.knowledge.map((entry) => [entry.node.id, entry.matched_on])).to.deep.equal([
      ['K-id', ['node_ids']],
      ['K-tag-and-domain', ['tags', 'domains']],
      ['K-tag', ['tags']],
      ['K-domain', ['domains']],
      ['K-init', ['initiatives']],
    ]);
    expect(sut.alerts).to.have.length(1);
    expect(sut.alerts[0]).to.deep.include({ kind: 'KNOWLEDGE_DEPRECATED_SOON', node: 'T', knowledge: 'K-old', superseded_by: ['K-new'], deprecation_reason: 'superseded by K-new' });
  });

  it('informing: what the node blocks and what was derived from it', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    fixture.task('Next', { blocked_by: ['T'] });
    fixture.knowledge('K', { tags: ['x'] }, { derived_from: ['T'] });
    const sut = nodeContext(fixture.draft(null), fixture.node('T'), fixture.now, { agent: null, staleMs: HOUR });
    expect(sut.informing.map((entry) => [entry.edge_type, entry.node.id, entry.node.status])).to.deep.equal([
      ['BLOCKS', 'Next', 'blocked'],
      ['DERIVED_FROM', 'K', 'active'],
    ]);
  });

  it('can_claim: whether take would claim it for the caller; without one, whether it is ready', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    const context = (agent: string | null) => nodeContext(fixture.draft(agent), fixture.node('T'), fixture.now, { agent, staleMs: HOUR });
    expect(context(null)).to.deep.include({ can_claim: true, allowed_actions: [] });
    fixture.as('alice', (draft) => lifecycle.take(draft, 'T'));
    expect([context(null).can_claim, context('alice').can_claim, context('bob').can_claim, context('orchestrator').can_claim]).to.deep.equal([false, false, false, true]);
  });
});
