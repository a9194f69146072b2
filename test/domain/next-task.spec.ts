import { expect } from 'chai';
import { nextTask } from '../../domain/next-task.js';
import { GraphFixture } from '../support/graph-fixture.js';

/** Ready: URGENT (priority 0, ops), CHAIN (heads a chain of 3), OLD and NEW (plain, api-tagged NEW in domain web). */
function project(): GraphFixture {
  const fixture = new GraphFixture();
  fixture.task('OLD');
  fixture.advance(1000);
  fixture.task('CHAIN');
  fixture.task('MID', { blocked_by: ['CHAIN'] });
  fixture.task('END', { blocked_by: ['MID'] });
  fixture.task('NEW', { domain: 'web', tags: ['api', 'ui'] });
  fixture.task('URGENT', { initiative: 'ops', specific: { priority: 0 } });
  return fixture;
}

describe('domain/next-task', () => {
  it('claims the best ready task and says why', () => {
    const fixture = project();
    const draft = fixture.draft('alice');
    const chosen = nextTask(draft, {}, undefined)!;
    expect(chosen.node).to.include({ id: 'URGENT', status: 'in_progress' });
    expect(chosen.node.claim).to.include({ by: 'alice' });
    expect(chosen.why).to.deep.include({ priority: 0, priority_set: true, critical_path: 1, rank: 1, ready: 4 });
    expect(chosen.why.message).to.equal(`URGENT ranks 1 of 4 ready: priority 0; no unfinished work waits on it; created ${fixture.now}`);
  });

  it('callers one after another get the next best each: priority, then the chain behind, then age', () => {
    const fixture = project();
    const picks = ['a', 'b', 'c', 'd', 'e'].map((agent) => fixture.as(agent, (draft) => nextTask(draft, {}, undefined)?.node.id ?? null));
    expect(picks).to.deep.equal(['URGENT', 'CHAIN', 'OLD', 'NEW', null]);
  });

  it('the filters narrow the choice: initiative, domain, every tag given', () => {
    const fixture = project();
    expect(fixture.as('a', (draft) => nextTask(draft, { initiative: 'demo' }, undefined)!.node.id)).to.equal('CHAIN');
    expect(fixture.as('b', (draft) => nextTask(draft, { domain: 'web' }, undefined)!.why)).to.deep.include({ rank: 3, ready: 3, critical_path: 1, priority_set: false });
    expect(fixture.as('c', (draft) => nextTask(draft, { tags: ['api', 'db'] }, undefined))).to.equal(null);
  });

  it('with a lease, the claim carries it; with nothing ready, null and nothing written', () => {
    const fixture = project();
    const chosen = fixture.as('a', (draft) => nextTask(draft, { initiative: 'ops' }, 60_000))!;
    expect(chosen.node.claim).to.include({ lease_ms: 60_000 });
    const draft = fixture.draft('b');
    expect(nextTask(draft, { initiative: 'ops' }, undefined)).to.equal(null);
    expect(draft.changes()).to.equal(null);
  });
});
