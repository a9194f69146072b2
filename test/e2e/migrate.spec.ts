import { expect } from 'chai';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { treeDigest } from '../support/durability.js';

/** A project as taskdag wrote it before schema 1 (docs/migrate.md). */
const SCHEMA_ZERO = {
  revision: 3,
  nodes: {
    'T-1': { id: 'T-1', kind: 'resolvable', subkind: 'task', title: 'Write the parser', initiative: 'parser', status: 'done', tags: ['core'] },
    'G-1': { id: 'G-1', kind: 'resolvable', subkind: 'gate', title: 'Pick a grammar', initiative: 'parser', status: 'resolved', resolution: { choice: 'PEG', rationale: 'simple' } },
    'K-1': { id: 'K-1', kind: 'knowledge', title: 'Avoid left recursion', initiative: 'parser', status: 'active', scope: { domains: ['parser'], initiatives: [], tags: [], node_ids: [] } },
  },
  edges: [{ from: 'G-1', to: 'T-1', type: 'BLOCKS' }],
  log: [
    { at: '2025-01-01T10:00:00.000Z', op: 'add-gate', node: 'G-1', by: 'ann' },
    { at: '2025-01-01T10:01:00.000Z', op: 'add-task', node: 'T-1' },
  ],
};

describe('migrate (docs/migrate.md)', () => {
  let sandbox: Sandbox;
  const projects = () => path.join(sandbox.home, '.taskdag', 'projects');

  /** A checkout whose project holds `content` as its tasks.json. */
  const legacyProject = (id: string, content: string) => {
    mkdirSync(path.join(projects(), id), { recursive: true });
    writeFileSync(path.join(projects(), id, 'tasks.json'), content);
  };

  beforeEach(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
    writeFileSync(path.join(sandbox.checkout, '.taskdag.json'), JSON.stringify({ project_id: 'legacy' }));
    legacyProject('legacy', JSON.stringify(SCHEMA_ZERO));
  });
  afterEach(() => sandbox.remove());

  it('the reader refuses schema 0 and points to migrate; init will not reset it', async () => {
    for (const args of [['state'], ['init']]) {
      const result = await sandbox.run(args);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('STORAGE_ERROR');
      expect(result.json.error.message).to.contain('migrate');
    }
  });

  it('--dry-run reports each form and writes nothing, not even a lock file', async () => {
    legacyProject('broken', '{"nodes": ');
    await sandbox.ok(['--project', '../fresh', 'init']);
    const before = treeDigest(projects());
    const report = await sandbox.ok(['migrate', '--all', '--dry-run']);
    expect(report.dry_run).to.equal(true);
    const forms = Object.fromEntries(report.projects.map((project: any) => [project.project_id, [project.form, project.action]]));
    expect(forms.legacy).to.deep.equal(['schema-0', 'import']);
    expect(forms.broken).to.deep.equal(['unrecognized', 'skip']);
    expect(Object.values(forms)).to.deep.include(['schema-1', 'none']);
    expect(treeDigest(projects())).to.deep.equal(before);
  });

  it('imports after a pre-migrate backup, needs an agent, and is idempotent', async () => {
    const refused = await sandbox.run(['migrate']);
    expect(refused.json.error.code).to.equal('MISSING_AGENT');

    const [imported] = (await sandbox.ok(['migrate', '--as', 'ops'])).projects;
    expect(imported).to.include({ form: 'schema-0', action: 'imported' });
    expect(imported.snapshot.reason).to.equal('pre-migrate');
    const backup = path.join(projects(), 'legacy', 'snapshots', `${imported.snapshot.id}.state.json`);
    expect(JSON.parse(readFileSync(backup, 'utf8'))).to.deep.equal(SCHEMA_ZERO);

    const state = (await sandbox.run(['state'])).json;
    expect(state).to.include({ version: 1, fence_generation: 1, revision: 4 });
    expect(state.initiatives.parser.desc).to.equal('registered by migrate from schema 0');
    expect(state.nodes['T-1']).to.include({ title: 'Write the parser', status: 'done', revision: 1, body: '', backlog: false, claim: null });
    expect(state.nodes['T-1'].tags).to.deep.equal(['core']);
    expect(state.nodes['G-1'].resolution).to.deep.equal({ choice: 'PEG', rationale: 'simple' });
    expect(state.log.map((entry: any) => [entry.revision, entry.op, entry.by])).to.deep.equal([
      [1, 'add-gate', 'ann'],
      [2, 'add-task', 'unknown'],
      [4, 'migrate', 'ops'],
    ]);
    await sandbox.ok(['add-initiative', 'next', '--as', 'ops']);

    const again = await sandbox.ok(['migrate', '--as', 'ops']);
    expect(again.projects[0]).to.include({ form: 'schema-1', action: 'none' });
  });

  it('skips what it cannot import, imports the rest, and says so with STORAGE_ERROR', async () => {
    const badEdge = { ...SCHEMA_ZERO, edges: [{ from: 'T-1', to: 'T-404', type: 'BLOCKS' }] };
    legacyProject('bad-edge', JSON.stringify(badEdge));
    const before = treeDigest(path.join(projects(), 'bad-edge'));
    const result = await sandbox.run(['migrate', '--all', '--as', 'ops']);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('STORAGE_ERROR');
    const outcome = Object.fromEntries(result.json.error.details.projects.map((project: any) => [project.project_id, project]));
    expect(outcome['bad-edge']).to.include({ form: 'schema-0', action: 'skip' });
    expect(outcome['bad-edge'].problem).to.contain('missing endpoint');
    expect(outcome.legacy.action).to.equal('imported');
    expect(treeDigest(path.join(projects(), 'bad-edge'))).to.deep.equal(before);
  });

  it('outside a checkout, migrate without --all and the plugin commands answer STORAGE_ERROR ENOENT saying what to do, and create nothing', async () => {
    rmSync(path.join(sandbox.checkout, '.taskdag.json'));
    const before = treeDigest(sandbox.root);
    for (const [args, instead] of [
      [['migrate', '--as', 'ops'], 'pass --all'],
      [['plugin', 'list'], 'run plugin list in a project\'s checkout'],
      [['plugin', 'remove', 'wip', '--as', 'ops'], 'run plugin remove in a project\'s checkout'],
    ] as const) {
      const refused = await sandbox.run([...args]);
      expect(refused.code, args.join(' ')).to.equal(1);
      expect(refused.json.error.code).to.equal('STORAGE_ERROR');
      expect(refused.json.error.details).to.deep.equal({ cause: 'ENOENT' });
      expect(refused.json.error.message).to.contain('No taskdag project here').and.contain(instead);
    }
    expect(treeDigest(sandbox.root)).to.deep.equal(before);
  });

  describe('a schema-1 state written back as one plain JSON document (spec 2.1\'s form)', () => {
    /** A project with history, whose tasks.json an operator then replaced with `state` output edited by hand. */
    async function projectRecoveredByHand(edit: (state: any) => void): Promise<{ dir: string; previous: any }> {
      rmSync(path.join(sandbox.checkout, '.taskdag.json'));
      const { state_dir: dir } = await sandbox.ok(['init']);
      await sandbox.ok(['add-initiative', 'parser', '--as', 'ann']);
      for (const id of ['T-1', 'T-2']) await sandbox.ok(['add-task', id, '--initiative', 'parser', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'ann']);
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
      const previous = (await sandbox.run(['state'])).json;
      const document = structuredClone(previous);
      edit(document);
      writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(document, null, 2));
      return { dir, previous };
    }

    it('is refused by the reader with a pointer to migrate, which imports it, log and all, moving revision and fence past what the files had', async () => {
      const { dir, previous } = await projectRecoveredByHand((state) => {
        delete state.nodes['T-2'];
      });
      const refused = await sandbox.run(['status']);
      expect(refused.code).to.equal(1);
      expect(refused.json.error.code).to.equal('STORAGE_ERROR');
      expect(refused.json.error.message).to.contain('taskdag migrate');

      const before = treeDigest(dir);
      const survey = await sandbox.ok(['migrate', '--dry-run']);
      expect(survey.projects[0]).to.include({ form: 'schema-1-document', action: 'import' });
      expect(treeDigest(dir)).to.deep.equal(before);

      const [imported] = (await sandbox.ok(['migrate', '--as', 'ops'])).projects;
      expect(imported).to.include({ form: 'schema-1-document', action: 'imported' });
      expect(imported.snapshot.raw_files.map((file: any) => file.name)).to.satisfy((names: string[]) => names.some((name) => name.endsWith('.ledger.1.jsonl')));

      const state = (await sandbox.run(['state'])).json;
      expect(Object.keys(state.nodes)).to.deep.equal(['T-1']);
      expect(state.nodes['T-1'].claim.by).to.equal('bob');
      expect(state.revision).to.equal(previous.revision + 1);
      expect(state.fence_generation).to.equal(previous.fence_generation + 1);
      expect(state.log.slice(0, -1)).to.deep.equal(previous.log);
      expect(state.log.at(-1)).to.include({ op: 'migrate', by: 'ops', from: 'schema-1-document', revision: state.revision });
      expect((await sandbox.ok(['status'])).summary.in_progress).to.equal(1);
      await sandbox.ok(['submit', 'T-1', '--note', 'done', '--as', 'bob']);
      expect((await sandbox.ok(['migrate', '--as', 'ops'])).projects[0]).to.include({ form: 'schema-1', action: 'none' });
    });

    it('skips a document that would not load (a BLOCKS cycle), with STORAGE_ERROR, and leaves every file as it was', async () => {
      const { dir } = await projectRecoveredByHand((state) => {
        state.edges.push({ from: 'T-1', to: 'T-2', type: 'BLOCKS' }, { from: 'T-2', to: 'T-1', type: 'BLOCKS' });
      });
      const survey = await sandbox.ok(['migrate', '--dry-run']);
      expect(survey.projects[0]).to.include({ form: 'schema-1-document', action: 'skip' });
      expect(survey.projects[0].problem).to.contain('cycle');
      const before = treeDigest(dir);
      const result = await sandbox.run(['migrate', '--as', 'ops']);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('STORAGE_ERROR');
      expect(result.json.error.details.projects[0]).to.include({ form: 'schema-1-document', action: 'skip' });
      expect(treeDigest(dir)).to.deep.equal(before);
    });
  });
});
