import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const AS = ['--as', 'alice'];

/** Flags that make a valid add-task; later flags of the same name win. */
const task = (...extra: string[]) => ['add-task', '--initiative', 'core', '--title', 'A task', '--body', 'b', '--acceptance', 'ok', '--blocked-by', '', ...extra, ...AS];
const gate = (...extra: string[]) => ['add-gate', '--initiative', 'core', '--title', 'A gate', '--body', 'b', '--purpose', 'decide', ...extra, ...AS];
const knowledge = (...extra: string[]) => ['add-knowledge', '--initiative', 'core', '--title', 'A tip', '--body', 'b', ...extra, ...AS];
const node = (id: string, ...extra: string[]) => ['add-node', id, '--title', 'Raw', '--initiative', 'core', ...extra, ...AS];

/** `args` without the flag `name` and its value: the way to test that a required flag is required. */
const without = (args: string[], name: string) => args.filter((_, at) => args[at] !== name && args[at - 1] !== name);
/** The same command line with one flag's value replaced (a flag given twice is refused). */
const setting = (args: string[], name: string, value: string) => [...without(args, name), name, value];

describe('creation commands (spec 4.2)', () => {
  let sandbox: Sandbox;
  // One project for the whole suite keeps spawns down; each test uses its own node ids.
  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--desc', 'Core work', ...AS]);
    await sandbox.ok(['add-gate', 'G-base', ...gate().slice(1)]);
    await sandbox.ok(['add-knowledge', 'K-base', ...knowledge('--scope-tags', 'base').slice(1)]);
  });
  after(() => sandbox.remove());

  const show = async (id: string) => (await sandbox.ok(['show', id])).node;
  const edgesOf = async (id: string) => (await sandbox.ok(['state'])).edges.filter((edge: any) => edge.from === id || edge.to === id);

  describe('add-initiative', () => {
    it('returns { initiative: { name, desc, created_at } }', async () => {
      const result = await sandbox.ok(['add-initiative', 'billing', '--desc', 'Invoices', ...AS]);
      expect(result).to.deep.equal({ initiative: { name: 'billing', desc: 'Invoices', created_at: result.initiative.created_at } });
      expect(result.initiative.created_at).to.match(TIMESTAMP);
      expect((await sandbox.ok(['add-initiative', 'no-desc', ...AS])).initiative.desc).to.equal('');
    });

    it('refuses a duplicate (ID_CONFLICT) and a missing name (MISSING_FIELD)', async () => {
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: ['add-initiative', 'core', ...AS], code: 'ID_CONFLICT', details: { initiative: 'core' } },
        { args: ['add-initiative', ...AS], code: 'MISSING_FIELD', details: { field: 'name' } },
      ]);
    });
  });

  describe('add-task', () => {
    it('creates a task with every flag, as { node } with revision 1', async () => {
      await sandbox.ok(task('T-source', '--blocked-by', ''));
      const { node: created } = await sandbox.ok(
        task('T-full', '--definition', 'What to build', '--domain', 'backend', '--tags', 'api, urgent', '--refs', 'docs/a.md,https://x.test',
          '--meta', '{"points":3,"nested":{"ok":true}}', '--derived-from', 'K-base,T-source', '--blocked-by', 'G-base,T-source'),
      );
      expect(created).to.deep.include({
        id: 'T-full', kind: 'resolvable', subkind: 'task', title: 'A task', body: 'b', initiative: 'core', domain: 'backend',
        tags: ['api', 'urgent'], refs: ['docs/a.md', 'https://x.test'], meta: { points: 3, nested: { ok: true } },
        definition: 'What to build', acceptance: 'ok', status: 'open', backlog: false, claim: null, revision: 1, created_by: 'alice',
      });
      expect(created.created_at).to.match(TIMESTAMP);
      expect(await show('T-full')).to.deep.equal(created);
      expect(await edgesOf('T-full')).to.have.deep.members([
        { from: 'T-full', to: 'K-base', type: 'DERIVED_FROM' },
        { from: 'T-full', to: 'T-source', type: 'DERIVED_FROM' },
        { from: 'G-base', to: 'T-full', type: 'BLOCKS' },
        { from: 'T-source', to: 'T-full', type: 'BLOCKS' },
      ]);
    });

    it("generates a T-xxxxxxxx id when none is given; --blocked-by '' means no blockers", async () => {
      const { node: created } = await sandbox.ok(task());
      expect(created.id).to.match(/^T-[0-9a-f]{8}$/);
      expect(await edgesOf(created.id)).to.deep.equal([]);
    });

    it('takes an unregistered initiative only with --allow-unregistered-initiative=true', async () => {
      const { node: created } = await sandbox.ok(setting(task('T-unregistered', '--allow-unregistered-initiative=true'), '--initiative', 'elsewhere'));
      expect(created.initiative).to.equal('elsewhere');
      // With a space, `true` is still the flag's value, never the positional node id.
      const { node: spaced } = await sandbox.ok(setting(task('--allow-unregistered-initiative', 'true'), '--initiative', 'elsewhere'));
      expect(spaced.id).to.match(/^T-[0-9a-f]{8}$/);
    });

    it('refuses bad input with the right code and writes nothing', async () => {
      await sandbox.ok(task('T-taken'));
      const valid = task('T-new');
      await expectFailuresLeaveStateUntouched(sandbox, [
        ...['--initiative', '--title', '--body', '--acceptance', '--blocked-by'].map((flag) => ({
          args: without(valid, flag),
          code: 'MISSING_FIELD',
          details: { flag },
        })),
        { args: setting(task('T-new'), '--initiative', 'elsewhere'), code: 'INITIATIVE_NOT_FOUND', details: { initiative: 'elsewhere' } },
        { args: setting(task('T-new', '--allow-unregistered-initiative'), '--initiative', 'elsewhere'), code: 'INVALID_ARGUMENT' },
        { args: task('T-new', '--supersedes', 'T-taken'), code: 'INVALID_ARGUMENT', details: { field: 'supersedes' } },
        { args: task('T-taken'), code: 'ID_CONFLICT', details: { id: 'T-taken' } },
        { args: task('bad id!'), code: 'INVALID_ARGUMENT' },
        { args: task('T-new', '--blocked-by', 'G-missing'), code: 'INVALID_EDGE_TARGET', details: { missing: 'G-missing' } },
        { args: task('T-new', '--blocked-by', 'K-base'), code: 'INVALID_EDGE_KIND' },
        { args: setting(task('T-new'), '--title', ''), code: 'INVALID_ARGUMENT', details: { field: 'title' } },
      ]);
    });
  });

  describe('add-gate', () => {
    it('creates a gate with every flag; a generated id is G-xxxxxxxx', async () => {
      const { node: created } = await sandbox.ok(
        gate('--resolution-mode', 'vote', '--blocked-by', 'G-base', '--derived-from', 'K-base', '--domain', 'arch', '--tags', 'x', '--refs', 'r',
          '--meta', '{"owner":"bob"}'),
      );
      expect(created.id).to.match(/^G-[0-9a-f]{8}$/);
      expect(created).to.deep.include({
        kind: 'resolvable', subkind: 'gate', status: 'open', purpose: 'decide', resolution_mode: 'vote', resolution: null,
        domain: 'arch', tags: ['x'], refs: ['r'], meta: { owner: 'bob' }, revision: 1,
      });
      expect(await edgesOf(created.id)).to.have.deep.members([
        { from: 'G-base', to: created.id, type: 'BLOCKS' },
        { from: created.id, to: 'K-base', type: 'DERIVED_FROM' },
      ]);
    });

    it('--supersedes marks the old gate superseded, bumps its revision and moves its incoming BLOCKS to the new gate', async () => {
      await sandbox.ok(task('T-prereq'));
      await sandbox.ok(gate('G-v1', '--blocked-by', 'T-prereq'));
      await sandbox.ok(task('T-waits', '--blocked-by', 'G-v1'));
      const { node: successor } = await sandbox.ok(gate('G-v2', '--supersedes', 'G-v1'));
      expect(successor).to.include({ id: 'G-v2', status: 'open', revision: 1 });
      expect(await show('G-v1')).to.include({ status: 'superseded', revision: 2 });
      expect(await edgesOf('G-v1')).to.have.deep.members([
        { from: 'G-v2', to: 'G-v1', type: 'SUPERSEDES' },
        { from: 'G-v1', to: 'T-waits', type: 'BLOCKS' },
      ]);
      expect(await edgesOf('G-v2')).to.deep.include({ from: 'T-prereq', to: 'G-v2', type: 'BLOCKS' });
    });

    it('refuses bad input with the right code and writes nothing', async () => {
      await sandbox.ok(gate('G-old'));
      await sandbox.ok(gate('G-replacement', '--supersedes', 'G-old'));
      await expectFailuresLeaveStateUntouched(sandbox, [
        ...['--initiative', '--title', '--body', '--purpose'].map((flag) => ({ args: without(gate('G-new'), flag), code: 'MISSING_FIELD', details: { flag } })),
        { args: gate('G-new', '--supersedes', 'G-missing'), code: 'INVALID_EDGE_TARGET' },
        { args: gate('G-new', '--supersedes', 'K-base'), code: 'INVALID_EDGE_KIND' },
        { args: gate('G-new', '--supersedes', 'G-old'), code: 'INVALID_STATUS', details: { id: 'G-old', status: 'superseded' } },
      ]);
    });
  });

  describe('add-knowledge', () => {
    it('creates knowledge with its scope and fields; a generated id is K-xxxxxxxx', async () => {
      const { node: created } = await sandbox.ok(
        knowledge('--scope-domains', 'backend,db', '--scope-initiatives', 'core', '--scope-tags', 'money', '--scope-node-ids', 'G-base',
          '--knowledge-type', 'pitfall', '--mitigation', 'Use cents', '--derived-from', 'G-base', '--domain', 'backend'),
      );
      expect(created.id).to.match(/^K-[0-9a-f]{8}$/);
      expect(created).to.deep.include({
        kind: 'knowledge', status: 'active', knowledge_type: 'pitfall', mitigation: 'Use cents', domain: 'backend', revision: 1,
        scope: { domains: ['backend', 'db'], initiatives: ['core'], tags: ['money'], node_ids: ['G-base'] },
      });
      expect(created).not.to.have.property('subkind');
    });

    it('--supersedes deprecates the knowledge it replaces', async () => {
      await sandbox.ok(knowledge('K-v1', '--scope-tags', 't'));
      await sandbox.ok(knowledge('K-v2', '--scope-tags', 't', '--supersedes', 'K-v1'));
      expect(await show('K-v1')).to.include({ status: 'deprecated', deprecation_reason: 'superseded by K-v2', deprecated_by: 'alice', revision: 2 });
    });

    it('refuses bad input with the right code and writes nothing', async () => {
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: knowledge('K-new'), code: 'MISSING_FIELD', details: { field: 'scope' } },
        { args: knowledge('K-new', '--scope-tags', ''), code: 'MISSING_FIELD', details: { field: 'scope' } },
        { args: without(knowledge('K-new', '--scope-tags', 't'), '--body'), code: 'MISSING_FIELD', details: { flag: '--body' } },
        { args: knowledge('K-new', '--scope-tags', 't', '--supersedes', 'G-base'), code: 'INVALID_EDGE_KIND' },
        { args: knowledge('K-new', '--scope-tags', 't', '--blocked-by', 'G-base'), code: 'INVALID_ARGUMENT' },
      ]);
    });
  });

  describe('add-node (raw escape hatch)', () => {
    it('creates a task in any stored status with its task fields', async () => {
      const { node: created } = await sandbox.ok(
        node('T-raw', '--kind', 'resolvable', '--subkind', 'task', '--status', 'done', '--definition', 'd', '--acceptance', 'a', '--backlog', 'true',
          '--body', 'b', '--blocked-by', 'G-base', '--derived-from', 'K-base', '--tags', 'imported', '--meta', '{"from":"legacy"}'),
      );
      expect(created).to.deep.include({ id: 'T-raw', subkind: 'task', status: 'done', definition: 'd', acceptance: 'a', backlog: true, tags: ['imported'] });
      expect(await edgesOf('T-raw')).to.have.deep.members([
        { from: 'G-base', to: 'T-raw', type: 'BLOCKS' },
        { from: 'T-raw', to: 'K-base', type: 'DERIVED_FROM' },
      ]);
      const { node: backlog } = await sandbox.ok(node('T-raw-backlog', '--kind', 'resolvable', '--subkind', 'task', '--backlog=true'));
      expect(backlog).to.include({ status: 'open', backlog: true });
    });

    it('creates a resolved gate from --choice and --rationale, and a gate that supersedes another', async () => {
      const { node: resolved } = await sandbox.ok(
        node('G-raw', '--kind', 'resolvable', '--subkind', 'gate', '--purpose', 'p', '--resolution-mode', 'single', '--choice', 'A', '--rationale', 'cheaper'),
      );
      expect(resolved).to.deep.include({ status: 'resolved', resolution: { choice: 'A', rationale: 'cheaper' }, resolved_by: 'alice' });
      await sandbox.ok(node('G-raw-next', '--kind', 'resolvable', '--subkind', 'gate', '--supersedes', 'G-raw'));
      expect(await show('G-raw')).to.include({ status: 'superseded', revision: 2 });
    });

    it('creates knowledge with a scope', async () => {
      const { node: created } = await sandbox.ok(
        node('K-raw', '--kind', 'knowledge', '--status', 'deprecated', '--knowledge-type', 'note', '--mitigation', 'm', '--scope-domains', 'a',
          '--scope-initiatives', 'core', '--scope-tags', 't', '--scope-node-ids', 'G-base'),
      );
      expect(created).to.deep.include({ kind: 'knowledge', status: 'deprecated', scope: { domains: ['a'], initiatives: ['core'], tags: ['t'], node_ids: ['G-base'] } });
    });

    it('refuses bad input with the right code and writes nothing', async () => {
      const resolvable = ['--kind', 'resolvable', '--subkind', 'task'];
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: ['add-node', '--kind', 'knowledge', '--title', 't', '--initiative', 'core', ...AS], code: 'MISSING_FIELD', details: { field: 'id' } },
        { args: node('T-x'), code: 'MISSING_FIELD', details: { flag: '--kind' } },
        { args: without(node('T-x', ...resolvable), '--title'), code: 'MISSING_FIELD', details: { flag: '--title' } },
        { args: node('T-x', '--kind', 'resolvable'), code: 'MISSING_FIELD', details: { field: 'subkind' } },
        { args: node('T-x', '--kind', 'task'), code: 'INVALID_ARGUMENT', details: { field: 'kind' } },
        { args: node('K-x', '--kind', 'knowledge', '--subkind', 'task'), code: 'INVALID_ARGUMENT' },
        { args: node('T-x', ...resolvable, '--status', 'ready'), code: 'INVALID_STATUS' },
        { args: node('T-x', ...resolvable, '--purpose', 'p'), code: 'INVALID_ARGUMENT', details: { field: 'purpose' } },
        { args: node('G-x', '--kind', 'resolvable', '--subkind', 'gate', '--choice', 'A'), code: 'MISSING_FIELD', details: { field: 'rationale' } },
        { args: node('T-x', ...resolvable, '--backlog', 'maybe'), code: 'INVALID_ARGUMENT', details: { flag: '--backlog' } },
        { args: node('T-x', ...resolvable, '--supersedes', 'T-raw'), code: 'INVALID_ARGUMENT', details: { field: 'supersedes' } },
        { args: node('G-base', ...resolvable), code: 'ID_CONFLICT' },
      ]);
    });
  });

  describe('show', () => {
    it('returns { type, node } for a task, a gate and knowledge', async () => {
      await sandbox.ok(task('T-shown'));
      const results = await Promise.all(['T-shown', 'G-base', 'K-base'].map((id) => sandbox.ok(['show', id])));
      expect(results.map((result) => [result.type, result.node.id])).to.deep.equal([
        ['task', 'T-shown'],
        ['gate', 'G-base'],
        ['knowledge', 'K-base'],
      ]);
      for (const result of results) expect(result).to.have.keys('type', 'node');
    });

    it('reports an unknown id as NODE_NOT_FOUND and a missing one as MISSING_FIELD', async () => {
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: ['show', 'T-nope'], code: 'NODE_NOT_FOUND', details: { id: 'T-nope' } },
        { args: ['show'], code: 'MISSING_FIELD', details: { field: 'id' } },
      ]);
    });
  });
});

