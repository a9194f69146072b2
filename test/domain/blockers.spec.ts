import { expect } from 'chai';
import { BLOCKER_LIST_LIMIT, BlockerFinder } from '../../domain/blockers.js';
import * as lifecycle from '../../domain/lifecycle.js';
import { GraphFixture } from '../support/graph-fixture.js';

describe('domain/blockers (what keeps a task blocked)', () => {
  const sut = (fixture: GraphFixture, id: string) => new BlockerFinder(fixture.draft()).of(id);

  it('names the unsatisfied direct blockers and the open roots up the chain, sorted', () => {
    const fixture = new GraphFixture();
    fixture.task('T-root-b');
    fixture.task('T-root-a');
    fixture.gate('G-open');
    fixture.task('T-done');
    fixture.task('T-mid', { blocked_by: ['T-root-a', 'T-root-b'] });
    fixture.task('T-x', { blocked_by: ['T-mid', 'G-open', 'T-done'] });
    fixture.as('alice', (draft) => lifecycle.take(draft, 'T-done'));
    fixture.as('alice', (draft) => lifecycle.submit(draft, 'T-done', 'n'));
    fixture.as('bob', (draft) => lifecycle.accept(draft, 'T-done'));
    expect(sut(fixture, 'T-x')).to.deep.equal({
      direct: ['G-open', 'T-mid'],
      direct_count: 2,
      open_roots: ['G-open', 'T-root-a', 'T-root-b'],
      open_roots_count: 3,
    });
  });

  it('counts a root reached by two paths once, and a submitted blocker as an open root', () => {
    const fixture = new GraphFixture();
    fixture.task('T-shared');
    fixture.task('T-left', { blocked_by: ['T-shared'] });
    fixture.task('T-right', { blocked_by: ['T-shared'] });
    fixture.task('T-x', { blocked_by: ['T-left', 'T-right'] });
    expect(sut(fixture, 'T-x').open_roots).to.deep.equal(['T-shared']);
    fixture.as('alice', (draft) => lifecycle.take(draft, 'T-shared'));
    fixture.as('alice', (draft) => lifecycle.submit(draft, 'T-shared', 'n'));
    expect(sut(fixture, 'T-x').open_roots, 'submitted never satisfies').to.deep.equal(['T-shared']);
  });

  it('follows a superseded gate to its open successor, which holds the decision now', () => {
    const fixture = new GraphFixture();
    fixture.gate('G-old');
    fixture.task('T-x', { blocked_by: ['G-old'] });
    fixture.gate('G-new', { supersedes: 'G-old' });
    expect(sut(fixture, 'T-x')).to.deep.include({ direct: ['G-old'], open_roots: ['G-new'] });
  });

  it(`lists at most ${BLOCKER_LIST_LIMIT} of each, and counts them all`, () => {
    const fixture = new GraphFixture();
    const ids = Array.from({ length: BLOCKER_LIST_LIMIT + 3 }, (_, at) => `T-${String(at).padStart(2, '0')}`);
    for (const id of ids) fixture.task(id);
    fixture.task('T-x', { blocked_by: ids });
    const blockers = sut(fixture, 'T-x');
    expect(blockers.direct).to.deep.equal(ids.slice(0, BLOCKER_LIST_LIMIT));
    expect([blockers.direct_count, blockers.open_roots_count]).to.deep.equal([ids.length, ids.length]);
  });

  it('walks a chain thousands long without recursion', () => {
    const fixture = new GraphFixture();
    fixture.task('T-0');
    for (let at = 1; at <= 3000; at++) fixture.task(`T-${at}`, { blocked_by: [`T-${at - 1}`] });
    expect(sut(fixture, 'T-3000')).to.deep.include({ direct: ['T-2999'], open_roots: ['T-0'] });
  });
});
