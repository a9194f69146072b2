import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { expectRefused } from '../support/expectations.js';

const TASK = ['--initiative', 'demo', '--body', 'b', '--acceptance', 'a'];

describe('e2e: lifecycle commands', function () {
  let sandbox: Sandbox;
  const task = (id: string, ...extra: string[]) => sandbox.ok(['add-task', id, '--title', id, ...TASK, '--blocked-by', '', ...extra, '--as', 'planner']);
  const gate = (id: string, ...extra: string[]) => sandbox.ok(['add-gate', id, '--title', id, '--initiative', 'demo', '--body', 'b', '--purpose', 'p', ...extra, '--as', 'planner']);

  before(async function () {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'demo', '--as', 'planner']);
  });
  after(() => sandbox.remove());

  describe('take', () => {
    it('claims a ready task: { node, context, freshly_claimed }, the context being what `context` prints', async () => {
      await task('T-take');
      const taken = await sandbox.ok(['take', 'T-take', '--as', 'alice']);
      expect(Object.keys(taken)).to.deep.equal(['node', 'context', 'freshly_claimed']);
      expect(taken.freshly_claimed).to.equal(true);
      expect(taken.node).to.deep.include({ status: 'in_progress', revision: 2 });
      expect(taken.node.claim.by).to.equal('alice');
      expect(taken.context).to.deep.equal(await sandbox.ok(['context', 'T-take', '--as', 'alice']));
    });

    it('is idempotent for the same agent and writes nothing', async () => {
      await task('T-again');
      await sandbox.ok(['take', 'T-again', '--as', 'alice']);
      const before = (await sandbox.run(['state'])).stdout;
      const again = await sandbox.ok(['take', 'T-again', '--as', 'alice']);
      expect(again.freshly_claimed).to.equal(false);
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });

    it('ALREADY_CLAIMED for another agent (recovery too); orchestrator takes over', async () => {
      await task('T-contested');
      await sandbox.ok(['take', 'T-contested', '--as', 'alice']);
      const error = await expectRefused(sandbox, ['take', 'T-contested', '--as', 'bob'], 'ALREADY_CLAIMED');
      expect(error.details).to.include({ id: 'T-contested', claimed_by: 'alice' });
      await expectRefused(sandbox, ['take', 'T-contested', '--as', 'recovery'], 'ALREADY_CLAIMED');
      const takeover = await sandbox.ok(['take', 'T-contested', '--as', 'orchestrator']);
      expect(takeover.freshly_claimed).to.equal(true);
      expect(takeover.node.claim.by).to.equal('orchestrator');
    });

    it('NOT_READY for blocked and backlog tasks and resolved gates; NOT_CLAIMABLE for open gates and knowledge; NODE_NOT_FOUND', async () => {
      await gate('G-hold');
      await task('T-blocked', '--blocked-by', 'G-hold');
      await task('T-later');
      await sandbox.ok(['update', 'T-later', '--backlog', 'true', '--as', 'planner']);
      await gate('G-done');
      await sandbox.ok(['resolve', 'G-done', '--choice', 'a', '--rationale', 'b', '--as', 'bob']);
      await sandbox.ok(['add-knowledge', 'K-take', '--title', 'k', '--initiative', 'demo', '--body', 'b', '--scope-tags', 'x', '--as', 'planner']);
      expect((await expectRefused(sandbox, ['take', 'T-blocked', '--as', 'alice'], 'NOT_READY')).details).to.deep.equal({
        id: 'T-blocked',
        status: 'blocked',
        blockers: { direct: ['G-hold'], direct_count: 1, open_roots: ['G-hold'], open_roots_count: 1 },
      });
      expect((await expectRefused(sandbox, ['take', 'T-later', '--as', 'alice'], 'NOT_READY')).details.status).to.equal('backlog');
      await expectRefused(sandbox, ['take', 'G-done', '--as', 'alice'], 'NOT_READY');
      await expectRefused(sandbox, ['take', 'G-hold', '--as', 'alice'], 'NOT_CLAIMABLE');
      await expectRefused(sandbox, ['take', 'K-take', '--as', 'alice'], 'NOT_CLAIMABLE');
      await expectRefused(sandbox, ['take', 'T-nowhere', '--as', 'alice'], 'NODE_NOT_FOUND');
    });

    it('MISSING_AGENT without --as or TASKDAG_AGENT; TASKDAG_AGENT is a fallback', async () => {
      await task('T-who');
      await expectRefused(sandbox, ['take', 'T-who'], 'MISSING_AGENT');
      const taken = await sandbox.ok(['take', 'T-who'], { env: { TASKDAG_AGENT: 'eve' } });
      expect(taken.node.claim.by).to.equal('eve');
    });
  });

  describe('release', () => {
    it('by the holder, orchestrator or recovery: { released: true, node } back to open; NOT_OWNER for others', async () => {
      for (const agent of ['alice', 'orchestrator', 'recovery']) {
        const id = `T-release-${agent}`;
        await task(id);
        await sandbox.ok(['take', id, '--as', 'alice']);
        if (agent === 'alice') await expectRefused(sandbox, ['release', id, '--as', 'bob'], 'NOT_OWNER');
        const released = await sandbox.ok(['release', id, '--as', agent]);
        expect(released.released).to.equal(true);
        expect(released.node).to.deep.include({ status: 'open', claim: null, revision: 3 });
      }
    });

    it('of an unclaimed task: released: false and nothing written', async () => {
      await task('T-free');
      const before = (await sandbox.run(['state'])).stdout;
      expect(await sandbox.ok(['release', 'T-free', '--as', 'bob'])).to.deep.include({ released: false });
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });
  });

  describe('submit, accept, reject', () => {
    it('submit needs --note and the claim holder; returns newly_ready: []', async () => {
      await task('T-work');
      await task('T-after', '--blocked-by', 'T-work');
      await sandbox.ok(['take', 'T-work', '--as', 'alice']);
      await expectRefused(sandbox, ['submit', 'T-work', '--as', 'alice'], 'MISSING_FIELD');
      await expectRefused(sandbox, ['submit', 'T-work', '--note', 'mine', '--as', 'bob'], 'NOT_OWNER');
      const submitted = await sandbox.ok(['submit', 'T-work', '--note', 'PR 7', '--as', 'alice']);
      expect(submitted.newly_ready).to.deep.equal([]);
      expect(submitted.node).to.deep.include({ status: 'submitted', claim: null, submitted_by: 'alice', note: 'PR 7' });
      await expectRefused(sandbox, ['take', 'T-work', '--as', 'bob'], 'NOT_READY');
      await expectRefused(sandbox, ['submit', 'T-work', '--note', 'again', '--as', 'alice'], 'INVALID_STATUS');
    });

    it('accept: done_by = submitted_by, accepted_by, timestamps, newly_ready', async () => {
      const accepted = await sandbox.ok(['accept', 'T-work', '--as', 'bob']);
      expect(accepted.newly_ready).to.deep.equal(['T-after']);
      expect(accepted.node).to.deep.include({ status: 'done', done_by: 'alice', accepted_by: 'bob', submitted_by: 'alice' });
      expect(accepted.node.done_at).to.equal(accepted.node.accepted_at);
      await expectRefused(sandbox, ['accept', 'T-work', '--as', 'bob'], 'INVALID_STATUS');
    });

    it('reject: needs --reason; back to open with claim and submission cleared; the reason is in the log entry', async () => {
      await task('T-redo');
      await sandbox.ok(['take', 'T-redo', '--as', 'alice']);
      await sandbox.ok(['submit', 'T-redo', '--note', 'try 1', '--as', 'alice']);
      await expectRefused(sandbox, ['reject', 'T-redo', '--as', 'bob'], 'MISSING_FIELD');
      const rejected = await sandbox.ok(['reject', 'T-redo', '--reason', 'Missing tests', '--as', 'bob']);
      expect(Object.keys(rejected)).to.deep.equal(['node']);
      expect(rejected.node).to.deep.include({ status: 'open', claim: null, submitted_by: null, submitted_at: null, note: null });
      const history = await sandbox.ok(['history', 'T-redo']);
      expect(history.entries.at(-1)).to.deep.include({ op: 'reject', node: 'T-redo', by: 'bob', reason: 'Missing tests' });
      expect((await sandbox.ok(['context', 'T-redo'])).derived_status).to.equal('ready');
      await expectRefused(sandbox, ['reject', 'T-redo', '--reason', 'x', '--as', 'bob'], 'INVALID_STATUS');
    });
  });

  describe('resolve and reopen', () => {
    it('resolve stores the resolution and returns newly_ready; a second resolve fails', async () => {
      await gate('G-pick');
      await task('T-gated', '--blocked-by', 'G-pick');
      await expectRefused(sandbox, ['resolve', 'G-pick', '--choice', 'A', '--as', 'bob'], 'MISSING_FIELD');
      const resolved = await sandbox.ok(['resolve', 'G-pick', '--choice', 'A', '--rationale', 'Cheaper', '--as', 'bob']);
      expect(resolved.newly_ready).to.deep.equal(['T-gated']);
      expect(resolved.node).to.deep.include({ status: 'resolved', resolution: { choice: 'A', rationale: 'Cheaper' }, resolved_by: 'bob', revision: 2 });
      await expectRefused(sandbox, ['resolve', 'G-pick', '--choice', 'B', '--rationale', 'r', '--as', 'bob'], 'INVALID_STATUS');
    });

    it('reopen of a resolved gate: its resolver or an administrator, --reason required; clears the resolution', async () => {
      await expectRefused(sandbox, ['reopen', 'G-pick', '--reason', 'why', '--as', 'alice'], 'NOT_OWNER');
      await expectRefused(sandbox, ['reopen', 'G-pick', '--as', 'bob'], 'MISSING_FIELD');
      const reopened = await sandbox.ok(['reopen', 'G-pick', '--reason', 'New facts', '--as', 'bob']);
      expect(reopened.node).to.deep.include({ status: 'open', resolution: null, revision: 3 });
      expect((await sandbox.ok(['context', 'T-gated'])).derived_status).to.equal('blocked');
    });

    it('reopen of a done task: done_by or an administrator; clears claim, submission, acceptance and done', async () => {
      await expectRefused(sandbox, ['reopen', 'T-work', '--reason', 'x', '--as', 'bob'], 'NOT_OWNER');
      const reopened = await sandbox.ok(['reopen', 'T-work', '--reason', 'Regression', '--as', 'recovery']);
      expect(reopened.node).to.deep.include({ status: 'open', done_by: null, done_at: null, accepted_by: null, submitted_by: null, claim: null });
      await expectRefused(sandbox, ['reopen', 'T-work', '--reason', 'x', '--as', 'orchestrator'], 'INVALID_STATUS');
    });
  });

  describe('cancel', () => {
    it('unclaimed open work is administrator-only; the holder cancels claimed work; closed work cannot be canceled', async () => {
      await task('T-drop');
      await expectRefused(sandbox, ['cancel', 'T-drop', '--reason', 'x', '--as', 'alice'], 'NOT_OWNER');
      expect((await sandbox.ok(['cancel', 'T-drop', '--reason', 'Out of scope', '--as', 'orchestrator'])).node).to.deep.include({ status: 'canceled', revision: 2 });
      await expectRefused(sandbox, ['cancel', 'T-drop', '--reason', 'x', '--as', 'orchestrator'], 'INVALID_STATUS');
      await task('T-mine');
      await sandbox.ok(['take', 'T-mine', '--as', 'alice']);
      await expectRefused(sandbox, ['cancel', 'T-mine', '--reason', 'x', '--as', 'bob'], 'NOT_OWNER');
      expect((await sandbox.ok(['cancel', 'T-mine', '--reason', 'Duplicate', '--as', 'alice'])).node).to.deep.include({ status: 'canceled', claim: null });
      await gate('G-moot');
      await expectRefused(sandbox, ['cancel', 'G-moot', '--reason', 'x', '--as', 'alice'], 'NOT_OWNER');
      expect((await sandbox.ok(['cancel', 'G-moot', '--reason', 'moot', '--as', 'recovery'])).node.status).to.equal('canceled');
    });
  });

  describe('deprecate-knowledge, add-note', () => {
    it('deprecate-knowledge stores reason, time and agent; a second one and non-knowledge fail', async () => {
      await sandbox.ok(['add-knowledge', 'K-old', '--title', 'k', '--initiative', 'demo', '--body', 'b', '--scope-tags', 'x', '--as', 'planner']);
      const { node } = await sandbox.ok(['deprecate-knowledge', 'K-old', '--reason', 'Outdated', '--as', 'bob']);
      expect(node).to.deep.include({ status: 'deprecated', deprecation_reason: 'Outdated', deprecated_by: 'bob', revision: 2 });
      await expectRefused(sandbox, ['deprecate-knowledge', 'K-old', '--reason', 'again', '--as', 'bob'], 'INVALID_STATUS');
      await expectRefused(sandbox, ['deprecate-knowledge', 'T-free', '--reason', 'x', '--as', 'bob'], 'INVALID_STATUS');
    });

    it('add-note appends the trailing words as one timestamped note; a missing text is MISSING_FIELD', async () => {
      await task('T-noted');
      await sandbox.ok(['add-note', 'T-noted', 'first', 'note', '--as', 'alice']);
      const { node } = await sandbox.ok(['add-note', 'T-noted', 'see', 'T-free', '--as', 'bob']);
      expect(node.notes.map((note: any) => [note.by, note.text])).to.deep.equal([['alice', 'first note'], ['bob', 'see T-free']]);
      expect(node.notes[0].at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(node.revision).to.equal(3);
      await expectRefused(sandbox, ['add-note', 'T-noted', '--as', 'alice'], 'MISSING_FIELD');
    });
  });

  describe('update', () => {
    it('changes every kind of flag; --tags and --refs replace; --meta must be an object', async () => {
      await task('T-edit', '--tags', 'a,b', '--refs', 'r1');
      const { node } = await sandbox.ok([
        'update', 'T-edit', '--title', 'Edited', '--body', 'nb', '--domain', 'db', '--tags', 'c', '--refs', 'r2,r3',
        '--meta', '{"points":5}', '--definition', 'def', '--acceptance', 'acc', '--as', 'planner',
      ]);
      expect(node).to.deep.include({ title: 'Edited', body: 'nb', domain: 'db', tags: ['c'], refs: ['r2', 'r3'], meta: { points: 5 }, definition: 'def', acceptance: 'acc', revision: 2 });
      await expectRefused(sandbox, ['update', 'T-edit', '--meta', '[1]', '--as', 'planner'], 'INVALID_ARGUMENT');
      await expectRefused(sandbox, ['update', 'T-edit', '--as', 'planner'], 'MISSING_FIELD');
      await expectRefused(sandbox, ['update', 'T-edit', '--purpose', 'p', '--as', 'planner'], 'INVALID_ARGUMENT');
    });

    it('--backlog true|false moves a task out of and back into the ready pool', async () => {
      await task('T-pool');
      await sandbox.ok(['update', 'T-pool', '--backlog', 'true', '--as', 'planner']);
      expect((await sandbox.ok(['context', 'T-pool'])).derived_status).to.equal('backlog');
      await sandbox.ok(['update', 'T-pool', '--backlog', 'false', '--as', 'planner']);
      expect((await sandbox.ok(['context', 'T-pool'])).derived_status).to.equal('ready');
      await expectRefused(sandbox, ['update', 'T-pool', '--backlog', 'maybe', '--as', 'planner'], 'INVALID_ARGUMENT');
    });

    it('--if-revision applies at the stored revision and is REVISION_CONFLICT otherwise', async () => {
      await task('T-cas');
      expect((await sandbox.ok(['update', 'T-cas', '--title', 'v2', '--if-revision', '1', '--as', 'planner'])).node.revision).to.equal(2);
      const error = await expectRefused(sandbox, ['update', 'T-cas', '--title', 'v3', '--if-revision', '1', '--as', 'planner'], 'REVISION_CONFLICT');
      expect(error.details).to.deep.equal({ id: 'T-cas', expected: 1, actual: 2 });
      await expectRefused(sandbox, ['update', 'T-cas', '--title', 'v3', '--if-revision', 'two', '--as', 'planner'], 'INVALID_ARGUMENT');
    });

    it('gate and knowledge fields', async () => {
      await gate('G-edit');
      expect((await sandbox.ok(['update', 'G-edit', '--purpose', 'np', '--resolution-mode', 'vote', '--as', 'planner'])).node).to.deep.include({ purpose: 'np', resolution_mode: 'vote' });
      await sandbox.ok(['add-knowledge', 'K-edit', '--title', 'k', '--initiative', 'demo', '--body', 'b', '--scope-tags', 'x', '--as', 'planner']);
      const { node } = await sandbox.ok([
        'update', 'K-edit', '--knowledge-type', 'pitfall', '--mitigation', 'm', '--scope-domains', 'db',
        '--scope-initiatives', 'demo', '--scope-tags', 'y,z', '--scope-node-ids', 'T-edit', '--as', 'planner',
      ]);
      expect(node).to.deep.include({ knowledge_type: 'pitfall', mitigation: 'm', scope: { domains: ['db'], initiatives: ['demo'], tags: ['y', 'z'], node_ids: ['T-edit'] } });
    });
  });

  it('every mutation appends one log entry and bumps the state revision by one', async () => {
    await task('T-count');
    const before = await sandbox.ok(['state']);
    await sandbox.ok(['take', 'T-count', '--as', 'alice']);
    await sandbox.ok(['add-note', 'T-count', 'hi', '--as', 'alice']);
    const after = await sandbox.ok(['state']);
    expect(after.revision).to.equal(before.revision + 2);
    expect(after.log.slice(-2).map((entry: any) => [entry.op, entry.node, entry.revision])).to.deep.equal([
      ['take', 'T-count', before.revision + 1],
      ['add-note', 'T-count', before.revision + 2],
    ]);
  });
});
