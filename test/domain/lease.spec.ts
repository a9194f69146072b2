import { expect } from 'chai';
import { DomainError } from '../../domain/errors.js';
import { leaseMillis, MAX_LEASE_MS } from '../../domain/fencing.js';
import * as sut from '../../domain/lease.js';
import * as lifecycle from '../../domain/lifecycle.js';
import type { TaskNode } from '../../domain/model.js';
import { GraphFixture, START } from '../support/graph-fixture.js';

const MINUTE = 60_000;

function refused(work: () => unknown): DomainError {
  try {
    work();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

/** Task X claimed by alice under a one-minute lease at START, task Y claimed by bob without one, task Z ready. */
function leasedProject(): GraphFixture {
  const fixture = new GraphFixture();
  fixture.task('X');
  fixture.task('Y');
  fixture.as('alice', (draft) => lifecycle.take(draft, 'X', MINUTE));
  fixture.as('bob', (draft) => lifecycle.take(draft, 'Y'));
  fixture.task('Z');
  return fixture;
}

const task = (fixture: GraphFixture, id: string) => fixture.node(id) as TaskNode;

describe('domain/lease (leases and fencing tokens)', () => {
  describe('leaseMillis', () => {
    it('reads 90s, 15m, 2h and 1500ms', () => {
      expect(['90s', '15m', '2h', '1500ms'].map(leaseMillis)).to.deep.equal([90_000, 15 * MINUTE, 2 * 60 * MINUTE, 1500]);
    });

    for (const bad of ['0s', '999ms', '169h', '15', 'm', '1.5h', '-1m']) {
      it(`refuses ${JSON.stringify(bad)} with INVALID_ARGUMENT naming --lease`, () => {
        const error = refused(() => leaseMillis(bad));
        expect(error.code).to.equal('INVALID_ARGUMENT');
        expect(error.details).to.include({ field: 'lease', flag: '--lease', value: bad, max_ms: MAX_LEASE_MS });
      });
    }
  });

  describe('take with a lease', () => {
    it('puts lease_ms and expires_at on the claim, and the token is the revision of the take', () => {
      const fixture = leasedProject();
      const claim = task(fixture, 'X').claim!;
      expect(claim).to.deep.equal({ by: 'alice', at: START, token: 3, lease_ms: MINUTE, expires_at: '2030-01-01T00:01:00.000Z' });
      expect(task(fixture, 'Y').claim).to.deep.equal({ by: 'bob', at: START, token: 4 });
    });

    it('taken again by its holder, a leased claim is renewed from now, keeping its token', () => {
      const fixture = leasedProject();
      fixture.advance(30_000);
      const draft = fixture.draft('alice');
      const result = lifecycle.take(draft, 'X');
      expect(result.freshly_claimed).to.equal(false);
      expect(result.node.claim).to.include({ token: 3, expires_at: '2030-01-01T00:01:30.000Z' });
      expect(draft.changes()!.log).to.have.length(1).and.to.have.nested.property('[0].op', 'renew');
    });

    it('taken again by its holder, a claim without a lease changes nothing, as the spec says', () => {
      const fixture = leasedProject();
      const draft = fixture.draft('bob');
      expect(lifecycle.take(draft, 'Y').freshly_claimed).to.equal(false);
      expect(draft.changes()).to.equal(null);
    });
  });

  describe('renew', () => {
    it('the holder renews for the lease it has, or for a new one', () => {
      const fixture = leasedProject();
      fixture.advance(40_000);
      expect(fixture.as('alice', (draft) => sut.renew(draft, 'X', { token: 3 })).node.claim!.expires_at).to.equal('2030-01-01T00:01:40.000Z');
      const longer = fixture.as('alice', (draft) => sut.renew(draft, 'X', { leaseMs: 10 * MINUTE }));
      expect(longer.node.claim).to.include({ lease_ms: 10 * MINUTE, expires_at: '2030-01-01T00:10:40.000Z', token: 3 });
    });

    const refusals: [string, string, (fixture: GraphFixture) => unknown, Record<string, unknown>][] = [
      ['another agent', 'NOT_OWNER', (fixture) => fixture.as('carol', (draft) => sut.renew(draft, 'X', {})), { owner: 'alice' }],
      ['a stale token', 'CLAIM_FENCED', (fixture) => fixture.as('alice', (draft) => sut.renew(draft, 'X', { token: 2 })), { token: 2, held_by: 'alice', held_token: 3 }],
      ['a claim without a lease and no --lease', 'MISSING_FIELD', (fixture) => fixture.as('bob', (draft) => sut.renew(draft, 'Y', {})), { field: 'lease' }],
      ['an unclaimed task', 'INVALID_STATUS', (fixture) => fixture.as('alice', (draft) => sut.renew(draft, 'Z', { leaseMs: MINUTE })), { status: 'ready' }],
    ];
    for (const [what, code, act, details] of refusals) {
      it(`refuses ${what} with ${code}, writing nothing`, () => {
        const fixture = leasedProject();
        const revision = fixture.graph.revision;
        const error = refused(() => act(fixture));
        expect(error.code).to.equal(code);
        expect(error.details).to.deep.include(details);
        expect(fixture.graph.revision).to.equal(revision);
      });
    }
  });

  describe('sweepLeases', () => {
    it('releases only the claims whose lease has ended, earliest first, one log entry each, in one draft', () => {
      const fixture = leasedProject();
      fixture.task('W');
      fixture.advance(10_000);
      fixture.as('carol', (draft) => lifecycle.take(draft, 'W', 30_000));
      fixture.advance(60_000);
      const draft = fixture.draft('recovery');
      const result = sut.sweepLeases(draft);
      expect(result.released).to.deep.equal([
        { id: 'W', by: 'carol', token: 7, expires_at: '2030-01-01T00:00:40.000Z', overdue_ms: 30_000 },
        { id: 'X', by: 'alice', token: 3, expires_at: '2030-01-01T00:01:00.000Z', overdue_ms: 10_000 },
      ]);
      expect(draft.changes()!.log.map((entry) => [entry.op, entry.node, entry.released_from, entry.token])).to.deep.equal([
        ['lease-expired', 'W', 'carol', 7],
        ['lease-expired', 'X', 'alice', 3],
      ]);
      expect(task(fixture, 'X')).to.include({ status: 'open', claim: null });
      // A claim without a lease never expires: only STALE_CLAIM alerts speak of it.
      expect(task(fixture, 'Y').claim).to.include({ by: 'bob' });
    });

    it('with nothing expired, writes nothing', () => {
      const fixture = leasedProject();
      const draft = fixture.draft('recovery');
      expect(sut.sweepLeases(draft).released).to.deep.equal([]);
      expect(draft.changes()).to.equal(null);
    });

    it('is refused to anyone but recovery and orchestrator', () => {
      const fixture = leasedProject();
      fixture.advance(2 * MINUTE);
      expect(refused(() => fixture.as('alice', (draft) => sut.sweepLeases(draft))).code).to.equal('NOT_OWNER');
      expect(fixture.as('orchestrator', (draft) => sut.sweepLeases(draft)).released).to.have.length(1);
    });
  });

  describe('fencing: a swept holder comes back late', () => {
    function sweptAndRetaken(): GraphFixture {
      const fixture = leasedProject();
      fixture.advance(2 * MINUTE);
      fixture.as('recovery', (draft) => sut.sweepLeases(draft));
      // The same agent name again (a restarted worker): only the token tells the two claims apart.
      fixture.as('alice', (draft) => lifecycle.take(draft, 'X', MINUTE));
      return fixture;
    }

    for (const [action, act] of [
      ['submit', (fixture: GraphFixture) => fixture.as('alice', (draft) => lifecycle.submit(draft, 'X', 'late work', 3))],
      ['release', (fixture: GraphFixture) => fixture.as('alice', (draft) => lifecycle.release(draft, 'X', 3))],
      ['renew', (fixture: GraphFixture) => fixture.as('alice', (draft) => sut.renew(draft, 'X', { token: 3 }))],
    ] as const) {
      it(`${action} with the swept claim's token is CLAIM_FENCED, naming the claim that holds the task now; nothing written`, () => {
        const fixture = sweptAndRetaken();
        const before = structuredClone(task(fixture, 'X'));
        const error = refused(() => act(fixture));
        expect(error.code).to.equal('CLAIM_FENCED');
        expect(error.details).to.deep.equal({ id: 'X', action, token: 3, status: 'in_progress', held_by: 'alice', held_token: 7 });
        expect(task(fixture, 'X')).to.deep.equal(before);
      });
    }

    it('with the current token, submit goes through', () => {
      const fixture = sweptAndRetaken();
      expect(fixture.as('alice', (draft) => lifecycle.submit(draft, 'X', 'work', 7)).node.status).to.equal('submitted');
    });

    it('a token given for a task nobody holds any more is CLAIM_FENCED, not INVALID_STATUS', () => {
      const fixture = leasedProject();
      fixture.advance(2 * MINUTE);
      fixture.as('recovery', (draft) => sut.sweepLeases(draft));
      const error = refused(() => fixture.as('alice', (draft) => lifecycle.submit(draft, 'X', 'late', 3)));
      expect(error.code).to.equal('CLAIM_FENCED');
      expect(error.details).to.include({ status: 'open', held_by: null, held_token: null });
    });
  });
});
