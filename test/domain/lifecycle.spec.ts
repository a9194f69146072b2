import { nodeIds, nodeOf } from '../../domain/node-map.js';
import { expect } from 'chai';
import * as sut from '../../domain/lifecycle.js';
import type { GateNode, KnowledgeNode, TaskNode } from '../../domain/model.js';
import { GraphFixture, nodeInState, START } from '../support/graph-fixture.js';

const LATER = '2030-01-01T00:01:00.000Z';

describe('domain/lifecycle', () => {
  describe('take', () => {
    it('claims a ready task: in_progress, claim {by, at, token}, freshly_claimed, revision+1, one log entry', () => {
      const fixture = nodeInState('task ready');
      fixture.advance(60_000);
      const draft = fixture.draft('alice');
      const result = sut.take(draft, 'X');
      expect(result.freshly_claimed).to.equal(true);
      expect(result.node).to.include({ status: 'in_progress', revision: 2, updated_at: LATER });
      // The fencing token is the revision of the take's own log entry.
      expect(result.node.claim).to.deep.equal({ by: 'alice', at: LATER, token: 2 });
      expect(draft.changes()!.log).to.deep.equal([{ revision: 2, at: LATER, by: 'alice', op: 'take', node: 'X', token: 2 }]);
    });

    it('is idempotent for the holder: freshly_claimed false, nothing written', () => {
      const fixture = nodeInState('task in_progress');
      const draft = fixture.draft('alice');
      const result = sut.take(draft, 'X');
      expect(result.freshly_claimed).to.equal(false);
      expect(result.node.revision).to.equal(2);
      expect(draft.changes()).to.equal(null);
    });

    it('lets orchestrator take over, recording whose claim it replaced', () => {
      const fixture = nodeInState('task in_progress');
      const draft = fixture.draft('orchestrator');
      const result = sut.take(draft, 'X');
      expect(result).to.deep.include({ freshly_claimed: true });
      expect(result.node.claim).to.deep.equal({ by: 'orchestrator', at: START, token: 3 });
      expect(draft.changes()!.log[0]).to.include({ op: 'take', taken_over_from: 'alice' });
    });
  });

  describe('release', () => {
    for (const agent of ['alice', 'orchestrator', 'recovery']) {
      it(`as ${agent}: open again, claim null, revision+1, released: true`, () => {
        const fixture = nodeInState('task in_progress');
        const result = sut.release(fixture.draft(agent), 'X');
        expect(result.released).to.equal(true);
        expect(result.node).to.include({ status: 'open', claim: null, revision: 3 });
      });
    }

    it('of an unclaimed task: released: false, nothing written', () => {
      const fixture = nodeInState('task ready');
      const draft = fixture.draft('alice');
      expect(sut.release(draft, 'X')).to.deep.include({ released: false });
      expect(draft.changes()).to.equal(null);
    });
  });

  describe('submit', () => {
    it('stores the submission and the note, clears the claim, newly_ready is empty, the note is in the log', () => {
      const fixture = nodeInState('task in_progress');
      fixture.task('Y', { blocked_by: ['X'] });
      const draft = fixture.draft('alice');
      const result = sut.submit(draft, 'X', 'PR 42, see Y');
      expect(result.newly_ready).to.deep.equal([]);
      expect(result.node).to.include({ status: 'submitted', claim: null, submitted_by: 'alice', submitted_at: START, note: 'PR 42, see Y', revision: 3 });
      expect(draft.changes()!.log[0]).to.include({ op: 'submit', node: 'X', note: 'PR 42, see Y' });
    });
  });

  describe('accept', () => {
    it('marks done: done_by = submitted_by, accepted_by, timestamps, keeps the submission', () => {
      const fixture = nodeInState('task submitted');
      fixture.advance(60_000);
      const { node } = sut.accept(fixture.draft('bob'), 'X');
      expect(node).to.include({
        status: 'done',
        submitted_by: 'alice',
        submitted_at: START,
        note: 'evidence',
        done_by: 'alice',
        done_at: LATER,
        accepted_by: 'bob',
        accepted_at: LATER,
        revision: 4,
      });
    });

    it('newly_ready holds exactly the tasks it made ready, sorted', () => {
      const fixture = nodeInState('task submitted');
      fixture.gate('G');
      fixture.task('D-only', { blocked_by: ['X'] });
      fixture.task('C-also-gate', { blocked_by: ['X', 'G'] });
      fixture.task('B-backlog', { blocked_by: ['X'], specific: { backlog: true } });
      fixture.task('A-second', { blocked_by: ['X'] });
      fixture.task('E-already-ready');
      fixture.task('F-grandchild', { blocked_by: ['D-only'] });
      expect(sut.accept(fixture.draft('bob'), 'X').newly_ready).to.deep.equal(['A-second', 'D-only']);
    });
  });

  describe('reject', () => {
    it('sends the task back to open, clears claim and submission, records the reason in the log entry', () => {
      const fixture = nodeInState('task submitted');
      const draft = fixture.draft('bob');
      const { node } = sut.reject(draft, 'X', 'No tests');
      expect(node).to.include({ status: 'open', claim: null, submitted_by: null, submitted_at: null, note: null, done_by: null, accepted_by: null, revision: 4 });
      expect(draft.changes()!.log[0]).to.include({ op: 'reject', node: 'X', reason: 'No tests', by: 'bob' });
      expect(nodeIds(fixture.graph)).to.deep.equal(['X'], 'no new task is created');
    });

    it('keeps the latest rejection on the task, through a new submission, until an acceptance clears it', () => {
      const fixture = nodeInState('task submitted');
      expect(nodeOf(fixture.graph, 'X')).not.to.have.property('rejection');
      sut.reject(fixture.draft('bob'), 'X', 'No tests');
      expect((nodeOf(fixture.graph, 'X') as TaskNode).rejection).to.deep.equal({ reason: 'No tests', by: 'bob', at: START });
      fixture.advance(60_000);
      sut.take(fixture.draft('alice'), 'X');
      sut.submit(fixture.draft('alice'), 'X', 'tests added');
      sut.reject(fixture.draft('carol'), 'X', 'Tests fail');
      expect((nodeOf(fixture.graph, 'X') as TaskNode).rejection, 'the latest one').to.deep.equal({ reason: 'Tests fail', by: 'carol', at: LATER });
      sut.take(fixture.draft('alice'), 'X');
      const { node: submitted } = sut.submit(fixture.draft('alice'), 'X', 'fixed');
      expect(submitted.rejection, 'the reviewer still sees why it came back').to.deep.equal({ reason: 'Tests fail', by: 'carol', at: LATER });
      const { node: accepted } = sut.accept(fixture.draft('bob'), 'X');
      expect(accepted).not.to.have.property('rejection');
      expect(nodeOf(fixture.graph, 'X')).not.to.have.property('rejection');
    });
  });

  describe('resolve', () => {
    it('stores the resolution and who resolved, and lists what it unblocked', () => {
      const fixture = nodeInState('gate open');
      fixture.task('T-waits', { blocked_by: ['X'] });
      const result = sut.resolve(fixture.draft('bob'), 'X', 'A', 'Cheaper');
      expect(result.node).to.deep.include({ status: 'resolved', resolution: { choice: 'A', rationale: 'Cheaper' }, resolved_by: 'bob', resolved_at: START, revision: 2 });
      expect(result.newly_ready).to.deep.equal(['T-waits']);
    });

    it('unblocks tasks still blocked by the superseded gate it replaces (spec 3.2 rule 3)', () => {
      const fixture = new GraphFixture();
      fixture.gate('G-old');
      fixture.task('T', { blocked_by: ['G-old'] });
      fixture.gate('G-new', { supersedes: 'G-old' });
      expect(sut.resolve(fixture.draft('bob'), 'G-new', 'A', 'r').newly_ready).to.deep.equal(['T']);
    });
  });

  describe('reopen', () => {
    it('a done task goes back to open with claim, submission, acceptance and done cleared', () => {
      const fixture = nodeInState('task done');
      const draft = fixture.draft('alice');
      const { node } = sut.reopen(draft, 'X', 'Regression');
      expect(node).to.include({ status: 'open', claim: null, submitted_by: null, done_by: null, done_at: null, accepted_by: null, accepted_at: null, note: null, revision: 5 });
      expect(draft.changes()!.log[0]).to.include({ op: 'reopen', reason: 'Regression' });
    });

    it('a resolved gate goes back to open with its resolution cleared', () => {
      const fixture = nodeInState('gate resolved');
      const { node } = sut.reopen(fixture.draft('recovery'), 'X', 'New facts');
      expect(node).to.include({ status: 'open', resolution: null, resolved_by: null, resolved_at: null, revision: 3 });
    });
  });

  describe('cancel', () => {
    for (const [state, agent] of [['task ready', 'orchestrator'], ['task in_progress', 'alice'], ['task submitted', 'recovery']] as const) {
      it(`${state} by ${agent}: canceled, claim cleared, revision+1, reason logged`, () => {
        const fixture = nodeInState(state);
        const before = fixture.node('X').revision;
        const draft = fixture.draft(agent);
        const node = sut.cancel(draft, 'X', 'Out of scope').node as TaskNode;
        expect(node).to.include({ status: 'canceled', claim: null, revision: before + 1 });
        expect(draft.changes()!.log[0]).to.include({ op: 'cancel', reason: 'Out of scope' });
      });
    }

    it('an open gate by an administrator', () => {
      const fixture = nodeInState('gate open');
      expect((sut.cancel(fixture.draft('orchestrator'), 'X', 'moot').node as GateNode).status).to.equal('canceled');
    });
  });

  describe('deprecate-knowledge', () => {
    it('stores reason, time and agent', () => {
      const fixture = nodeInState('knowledge active');
      const node = sut.deprecateKnowledge(fixture.draft('bob'), 'X', 'Outdated').node as KnowledgeNode;
      expect(node).to.include({ status: 'deprecated', deprecation_reason: 'Outdated', deprecated_at: START, deprecated_by: 'bob', revision: 2 });
    });
  });

  describe('add-note', () => {
    it('appends a timestamped note, never changing earlier ones, and logs its text', () => {
      const fixture = nodeInState('gate open');
      sut.addNote(fixture.draft('alice'), 'X', 'first');
      fixture.advance(60_000);
      const draft = fixture.draft('bob');
      const { node } = sut.addNote(draft, 'X', 'second');
      expect(node.notes).to.deep.equal([
        { at: START, by: 'alice', text: 'first' },
        { at: LATER, by: 'bob', text: 'second' },
      ]);
      expect(node.revision).to.equal(3);
      expect(draft.changes()!.log[0]).to.include({ op: 'add-note', node: 'X', note: 'second' });
    });
  });

  it('a missing node is NODE_NOT_FOUND for every transition', () => {
    const fixture = new GraphFixture();
    expect(() => sut.take(fixture.draft('alice'), 'nope')).to.throw().with.property('code', 'NODE_NOT_FOUND');
    expect(() => sut.resolve(fixture.draft('alice'), 'nope', 'a', 'b')).to.throw().with.property('code', 'NODE_NOT_FOUND');
  });
});
