import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';

describe('init and state (spec 2.1, 4.4)', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(() => sandbox.remove());

  it('creates .taskdag.json and an empty schema-1 state under $TASKDAG_HOME/projects/<project_id>', async () => {
    const result = await sandbox.init();
    expect(result).to.have.keys('project_id', 'created', 'checkout', 'state_dir');
    expect(result.project_id).to.match(/^checkout-[0-9a-f]{8}$/);
    expect(result).to.include({ created: true, checkout: sandbox.checkout });
    expect(result.state_dir).to.equal(path.join(sandbox.home, '.taskdag', 'projects', result.project_id));
    expect(JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8'))).to.deep.equal({ project_id: result.project_id });
    expect(await sandbox.ok(['state'])).to.deep.equal({
      version: 1,
      fence_generation: 1,
      revision: 0,
      initiatives: {},
      nodes: {},
      edges: [],
      log: [],
    });
  });

  it('defaults the storage root to ~/.taskdag when TASKDAG_HOME is unset', async () => {
    const home = path.join(sandbox.root, 'another-home');
    const result = await sandbox.ok(['init'], { env: { TASKDAG_HOME: undefined, HOME: home } });
    expect(result.state_dir).to.equal(path.join(home, '.taskdag', 'projects', result.project_id));
    expect(existsSync(path.join(result.state_dir, 'tasks.json'))).to.equal(true);
  });

  it('run again, changes nothing and reports created: false; a subdirectory finds the same project', async () => {
    const first = await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    const subdir = path.join(sandbox.checkout, 'src', 'deep');
    mkdirSync(subdir, { recursive: true });
    const again = await sandbox.ok(['init'], { cwd: subdir });
    expect(again).to.deep.equal({ ...first, created: false });
    const state = await sandbox.ok(['state'], { cwd: subdir });
    expect(Object.keys(state.initiatives)).to.deep.equal(['core']);
  });

  it('state prints the same bytes for the same state, with nodes in id order', async () => {
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    for (const id of ['T-b', 'T-a']) {
      await sandbox.ok(['add-task', id, '--initiative', 'core', '--title', id, '--body', '', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice']);
    }
    const [first, second] = await Promise.all([sandbox.run(['state']), sandbox.run(['state'])]);
    expect(first.stdout).to.equal(second.stdout);
    expect(Object.keys(first.json.nodes)).to.deep.equal(['T-a', 'T-b']);
    expect(first.json.revision).to.equal(3);
    expect(first.json.log.map((entry: any) => [entry.revision, entry.op, entry.by])).to.deep.equal([
      [1, 'add-initiative', 'alice'],
      [2, 'add-task', 'alice'],
      [3, 'add-task', 'alice'],
    ]);
    for (const entry of first.json.log) expect(entry.at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
