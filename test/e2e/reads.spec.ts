import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { expectRefused } from '../support/expectations.js';

describe('e2e: read commands', function () {
  let sandbox: Sandbox;

  before(async function () {
    sandbox = new Sandbox();
    const run = (...args: string[]) => sandbox.ok(args);
    const task = (id: string, ...extra: string[]) =>
      run('add-task', id, '--initiative', 'billing', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', ...extra, '--as', 'planner');
    await sandbox.init();
    await run('add-initiative', 'billing', '--desc', 'Money', '--as', 'planner');
    await run('add-initiative', 'empty', '--as', 'planner');
    await run('add-gate', 'G-schema', '--initiative', 'billing', '--title', 'Schema', '--body', 'b', '--purpose', 'p', '--as', 'planner');
    await task('T-api', '--blocked-by', 'G-schema', '--tags', 'api', '--domain', 'backend');
    await task('T-doc');
    await task('T-ui', '--domain', 'frontend');
    await run('add-knowledge', 'K-cents', '--initiative', 'billing', '--title', 'Money is integer cents', '--body', 'Never floats', '--scope-tags', 'api', '--mitigation', 'Use bigint', '--as', 'planner');
    await run('add-knowledge', 'K-float', '--initiative', 'billing', '--title', 'Floats were fine', '--body', 'cents as floats', '--scope-domains', 'backend', '--as', 'planner');
    await run('deprecate-knowledge', 'K-float', '--reason', 'Wrong', '--as', 'planner');
    await run('add-task', 'T-stray', '--initiative', 'ghost', '--allow-unregistered-initiative=true', '--title', 's', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'planner');
    await run('take', 'T-doc', '--as', 'alice');
    await run('add-note', 'T-ui', 'Depends', 'on', 'T-doc.', '--as', 'bob');
  });
  after(() => sandbox.remove());

  describe('status', () => {
    it('prints summary, groups, knowledge_count and alerts', async () => {
      const status = await sandbox.ok(['status']);
      expect(Object.keys(status)).to.deep.equal(['summary', 'tasks', 'gates', 'knowledge_count', 'alerts']);
      expect(status.summary).to.deep.equal({ ready: 2, in_progress: 1, blocked: 1, backlog: 0, submitted: 0, open_gates: 1, active_knowledge: 1 });
      expect(status.tasks.in_progress.map((item: any) => item.id)).to.deep.equal(['T-doc']);
      expect(status.alerts).to.deep.equal([]);
    });

    it('--stale-ms 0 makes every claim stale; --claimed-by narrows in_progress and alerts', async () => {
      const stale = await sandbox.ok(['status', '--stale-ms', '0']);
      expect(stale.alerts.map((alert: any) => [alert.kind, alert.node, alert.claimed_by])).to.deep.equal([['STALE_CLAIM', 'T-doc', 'alice']]);
      const bobs = await sandbox.ok(['status', '--stale-ms', '0', '--claimed-by', 'bob']);
      expect([bobs.tasks.in_progress, bobs.alerts]).to.deep.equal([[], []]);
    });

    it('--initiative, --kind, --status, --domain, --limit, --all', async () => {
      expect((await sandbox.ok(['status', '--initiative', 'ghost'])).summary.ready).to.equal(1);
      expect((await sandbox.ok(['status', '--kind', 'gate'])).summary).to.deep.include({ ready: 0, open_gates: 1 });
      expect((await sandbox.ok(['status', '--status', 'blocked'])).tasks.blocked.map((item: any) => item.id)).to.deep.equal(['T-api']);
      expect((await sandbox.ok(['status', '--domain', 'frontend'])).tasks.ready.map((item: any) => item.id)).to.deep.equal(['T-ui']);
      const limited = await sandbox.ok(['status', '--limit', '1']);
      expect([limited.tasks.ready.length, limited.summary.ready]).to.deep.equal([1, 2]);
      const all = await sandbox.ok(['status', '--all']);
      expect(all.knowledge.deprecated.map((item: any) => item.id)).to.deep.equal(['K-float']);
      expect(all).to.not.have.property('knowledge_count');
    });

    it('refuses malformed filters with INVALID_ARGUMENT', async () => {
      await expectRefused(sandbox, ['status', '--limit', '0'], 'INVALID_ARGUMENT');
      await expectRefused(sandbox, ['status', '--stale-ms', 'soon'], 'INVALID_ARGUMENT');
      await expectRefused(sandbox, ['status', '--kind', 'epic'], 'INVALID_ARGUMENT');
      await expectRefused(sandbox, ['status', '--status', 'doing'], 'INVALID_ARGUMENT');
    });
  });

  describe('context', () => {
    it('prints every field, knowledge by specificity, and the deprecated-knowledge alert', async () => {
      const context = await sandbox.ok(['context', 'T-api', '--as', 'alice']);
      expect(Object.keys(context)).to.deep.equal(['node', 'derived_status', 'can_claim', 'revision', 'claim', 'blocking', 'knowledge', 'informing', 'alerts', 'allowed_actions']);
      expect(context).to.deep.include({ derived_status: 'blocked', can_claim: false, revision: 1, claim: null, allowed_actions: ['add-note', 'update'] });
      expect(context.blocking.map((entry: any) => [entry.node.id, entry.satisfied])).to.deep.equal([['G-schema', false]]);
      expect(context.knowledge.map((entry: any) => [entry.node.id, entry.matched_on])).to.deep.equal([['K-cents', ['tags']]]);
      expect(context.alerts.map((alert: any) => [alert.kind, alert.knowledge])).to.deep.equal([['KNOWLEDGE_DEPRECATED_SOON', 'K-float']]);
    });

    it('claim carries stale per --stale-ms; a missing node is NODE_NOT_FOUND', async () => {
      expect((await sandbox.ok(['context', 'T-doc', '--stale-ms', '0'])).claim).to.deep.include({ by: 'alice', stale: true });
      expect((await sandbox.ok(['context', 'T-doc'])).claim.stale).to.equal(false);
      await expectRefused(sandbox, ['context', 'T-none'], 'NODE_NOT_FOUND');
      await expectRefused(sandbox, ['context'], 'MISSING_FIELD');
    });
  });

  describe('search, show, history, initiatives', () => {
    it('search: active knowledge by default, deprecated with --all', async () => {
      const found = await sandbox.ok(['search', 'CENTS']);
      expect(found.count).to.equal(1);
      expect(found.matches[0]).to.deep.include({ id: 'K-cents', kind: 'knowledge', title: 'Money is integer cents', initiative: 'billing', status: 'active' });
      expect(found.matches[0].matched_fields).to.deep.equal(['id', 'title']);
      expect((await sandbox.ok(['search', 'cents', '--all'])).matches.map((match: any) => match.id)).to.deep.equal(['K-cents', 'K-float']);
      await expectRefused(sandbox, ['search'], 'MISSING_FIELD');
    });

    it('show: { type, node }', async () => {
      expect(await sandbox.ok(['show', 'G-schema'])).to.deep.include({ type: 'gate' });
      expect((await sandbox.ok(['show', 'K-cents'])).type).to.equal('knowledge');
    });

    it('history: its own entries and notes naming it as a whole token; --limit keeps the latest', async () => {
      const history = await sandbox.ok(['history', 'T-doc']);
      expect(history.id).to.equal('T-doc');
      expect(history.entries.map((entry: any) => [entry.op, entry.node])).to.deep.equal([
        ['add-task', 'T-doc'],
        ['take', 'T-doc'],
        ['add-note', 'T-ui'],
      ]);
      expect((await sandbox.ok(['history', 'T-doc', '--limit', '1'])).entries.map((entry: any) => entry.op)).to.deep.equal(['add-note']);
      await expectRefused(sandbox, ['history', 'T-doc', '--limit', 'x'], 'INVALID_ARGUMENT');
    });

    it('initiatives: with nodes by default, all with --all, unregistered counted', async () => {
      expect(await sandbox.ok(['initiatives'])).to.deep.include({ all: false, unregistered: { nodes: 1, values: ['ghost'] } });
      const listed = await sandbox.ok(['initiatives']);
      expect(listed.initiatives.map((item: any) => [item.name, item.desc, item.nodes, item.tasks, item.knowledge])).to.deep.equal([['billing', 'Money', 6, 3, 2]]);
      expect((await sandbox.ok(['initiatives', '--all'])).initiatives.map((item: any) => item.name)).to.deep.equal(['billing', 'empty']);
    });
  });
});

describe('e2e: status over a saved checkpoint and a ledger tail after it', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  afterEach(() => sandbox.remove());

  it('--all --claimed-by lists a group read from the saved buckets without a task the tail moved out of it', async () => {
    sandbox = new Sandbox();
    const run = (...args: string[]) => sandbox.ok(args);
    await sandbox.init();
    await run('add-initiative', 'billing', '--as', 'planner');
    for (const id of ['T-0', 'T-1', 'T-2']) await run('add-task', id, '--initiative', 'billing', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'planner');
    // Two notes of 20 KB pass the smallest checkpoint threshold (32 KiB): the three tasks are saved ready.
    for (const at of [0, 1]) await run('add-note', 'T-2', `note ${at} ${'x'.repeat(20_000)}`, '--as', 'planner');
    // The ledger tail: one ready task canceled, one taken.
    await run('cancel', 'T-0', '--reason', 'dropped', '--as', 'orchestrator');
    await run('take', 'T-1', '--as', 'alice');
    const status = await run('status', '--all', '--claimed-by', 'alice');
    const ids = (group: { id: string }[]) => group.map((task) => task.id);
    expect({ ready: ids(status.tasks.ready), in_progress: ids(status.tasks.in_progress), canceled: ids(status.tasks.canceled) }).to.deep.equal({ ready: ['T-2'], in_progress: ['T-1'], canceled: ['T-0'] });
    expect(status.summary.ready).to.equal(1);
  });
});
