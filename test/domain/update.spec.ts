import { expect } from 'chai';
import type { KnowledgeNode, TaskNode } from '../../domain/model.js';
import { updateNode as sut } from '../../domain/update.js';
import { GraphFixture, START } from '../support/graph-fixture.js';

const OPTIONS = { allowUnregisteredInitiative: false };

describe('domain/update', () => {
  it('changes the given fields, replaces tags and refs whole, bumps revision and updated_at, logs the field names', () => {
    const fixture = new GraphFixture();
    fixture.task('T', { tags: ['a', 'b'] });
    fixture.advance(1000);
    const draft = fixture.draft('alice');
    const { node } = sut(draft, 'T', { title: 'New', tags: ['c'], refs: ['r1', 'r2'], meta: { points: 3 }, acceptance: 'Green' }, OPTIONS);
    expect(node).to.deep.include({ title: 'New', tags: ['c'], refs: ['r1', 'r2'], meta: { points: 3 }, acceptance: 'Green', revision: 2 });
    expect(node.updated_at).to.not.equal(START);
    expect(draft.changes()!.log[0]).to.deep.include({ op: 'update', node: 'T', fields: ['title', 'tags', 'refs', 'meta', 'acceptance'] });
  });

  it('--backlog true takes a ready task out of the pool, false puts it back (derived again)', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    expect((sut(fixture.draft('a'), 'T', { backlog: true }, OPTIONS).node as TaskNode).backlog).to.equal(true);
    expect((sut(fixture.draft('a'), 'T', { backlog: false }, OPTIONS).node as TaskNode).backlog).to.equal(false);
  });

  it('--if-revision: applies at the stored revision, REVISION_CONFLICT otherwise with both revisions', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    expect(sut(fixture.draft('a'), 'T', { title: 'x' }, { ...OPTIONS, ifRevision: 1 }).node.revision).to.equal(2);
    expect(() => sut(fixture.draft('a'), 'T', { title: 'y' }, { ...OPTIONS, ifRevision: 1 }))
      .to.throw()
      .that.deep.includes({ code: 'REVISION_CONFLICT', details: { id: 'T', expected: 1, actual: 2 } });
    expect(fixture.node('T').title).to.equal('x');
  });

  it('needs at least one field (MISSING_FIELD)', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    expect(() => sut(fixture.draft('a'), 'T', {}, OPTIONS)).to.throw().with.property('code', 'MISSING_FIELD');
  });

  it('refuses a field of another node type (INVALID_ARGUMENT)', () => {
    const fixture = new GraphFixture();
    fixture.gate('G');
    expect(() => sut(fixture.draft('a'), 'G', { backlog: true }, OPTIONS)).to.throw().that.deep.includes({ code: 'INVALID_ARGUMENT' });
    expect(() => sut(fixture.draft('a'), 'G', { mitigation: 'm' }, OPTIONS)).to.throw().with.property('code', 'INVALID_ARGUMENT');
    expect(sut(fixture.draft('a'), 'G', { purpose: 'p', resolution_mode: 'vote' }, OPTIONS).node).to.include({ purpose: 'p', resolution_mode: 'vote' });
  });

  it('an unregistered initiative is INITIATIVE_NOT_FOUND unless allowed', () => {
    const fixture = new GraphFixture();
    fixture.task('T');
    expect(() => sut(fixture.draft('a'), 'T', { initiative: 'ghost' }, OPTIONS)).to.throw().with.property('code', 'INITIATIVE_NOT_FOUND');
    expect(sut(fixture.draft('a'), 'T', { initiative: 'ghost' }, { allowUnregisteredInitiative: true }).node.initiative).to.equal('ghost');
  });

  it('an empty --domain clears the domain', () => {
    const fixture = new GraphFixture();
    fixture.task('T', { domain: 'backend' });
    expect(sut(fixture.draft('a'), 'T', { domain: '' }, OPTIONS).node.domain).to.equal(null);
  });

  it('replaces knowledge scope lists one by one, and refuses to leave the scope empty', () => {
    const fixture = new GraphFixture();
    fixture.knowledge('K', { tags: ['api'], domains: ['backend'] });
    const node = sut(fixture.draft('a'), 'K', { scope_tags: ['db'], knowledge_type: 'pitfall' }, OPTIONS).node as KnowledgeNode;
    expect(node.scope).to.deep.equal({ domains: ['backend'], initiatives: [], tags: ['db'], node_ids: [] });
    expect(() => sut(fixture.draft('a'), 'K', { scope_tags: [], scope_domains: [] }, OPTIONS)).to.throw().with.property('code', 'INVALID_ARGUMENT');
  });
});
