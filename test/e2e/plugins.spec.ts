import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';
import { login, request } from '../support/server-process.js';
import { allowPlugins, linkedClient, loginAt, startLinkedServer, type LinkedServer } from '../support/linked-server.js';

const EXAMPLES = path.resolve(__dirname, '../../../examples/plugins');
const RESTORE_GUARD = path.join(EXAMPLES, 'restore-guard.js');
const WIP_LIMIT = path.join(EXAMPLES, 'wip-limit.js');

const task = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice'];

/** A plugin module written for one test: `decide` and the rest of its exports as source text. */
function writePlugin(sandbox: Sandbox, file: string, body: string): string {
  const dir = path.join(sandbox.root, 'plugins');
  mkdirSync(dir, { recursive: true });
  const module = path.join(dir, file);
  writeFileSync(module, `'use strict';\n${body}\n`);
  return module;
}

const FROZEN = `module.exports = { name: 'frozen', apiVersion: 1, decide: (request) => request.operation === 'push' ? { allow: false, reason: 'this project is frozen' } : { allow: true } };`;

const allowAll = (name: string, extra = '') => `module.exports = { name: '${name}', apiVersion: 1, decide() { return { allow: true }; }${extra} };`;

/** Policy plugins (docs/plugins.md) through the built binary. */
describe('policy plugins', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const stateDir = () => {
    const projects = path.join(sandbox.home, '.taskdag', 'projects');
    return path.join(projects, readdirSync(projects)[0]!);
  };
  /** Every file of the project, so a refusal can be shown to have changed none of them. */
  const files = () => fileTree(stateDir());
  const expectFailure = async (args: string[], code: string, env: Record<string, string> = {}) => {
    const before = files();
    const result = await sandbox.run(args, { env });
    expect(result.code, result.stdout).to.equal(1);
    expect(result.json.error.code, result.stdout).to.equal(code);
    expect(files(), 'state untouched').to.deep.equal(before);
    return result.json.error;
  };

  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    for (const id of ['T-1', 'T-2', 'T-3']) await sandbox.ok(task(id));
  });
  afterEach(() => sandbox.remove());

  describe('installing', () => {
    it('records the plugin in the project state with a log entry, never in .taskdag.json, and lists it', async () => {
      const checkoutFile = readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8');
      const before = await sandbox.ok(['state']);
      const added = await sandbox.ok(['plugin', 'add', RESTORE_GUARD, '--as', 'alice']);
      expect(added.plugin).to.include({ name: 'restore-guard', module: RESTORE_GUARD, api_version: 1, installed_by: 'alice', data: null });
      expect(added.revision).to.equal(before.revision + 1);
      const after = await sandbox.ok(['state']);
      expect(after.log.at(-1)).to.include({ op: 'plugin.add', plugin: 'restore-guard', by: 'alice', revision: added.revision });
      expect(Object.keys(after).sort()).to.deep.equal(Object.keys(before).sort());
      expect(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8')).to.equal(checkoutFile);
      const listed = await sandbox.ok(['plugin', 'list']);
      expect(listed).to.deep.equal({ plugins: [added.plugin], supported_api_versions: [1] });
    });

    it('resolves a relative module path from the working directory', async () => {
      mkdirSync(path.join(sandbox.checkout, 'policy'), { recursive: true });
      writeFileSync(path.join(sandbox.checkout, 'policy', 'open.js'), allowAll('open-door'));
      const added = await sandbox.ok(['plugin', 'add', './policy/open.js', '--as', 'alice']);
      expect(added.plugin.module).to.equal(path.join(sandbox.checkout, 'policy', 'open.js'));
    });

    it('needs an agent, and refuses a second plugin of the same name and the removal of one not installed', async () => {
      await expectFailure(['plugin', 'add', RESTORE_GUARD], 'MISSING_AGENT');
      await sandbox.ok(['plugin', 'add', RESTORE_GUARD, '--as', 'alice']);
      const twice = await expectFailure(['plugin', 'add', RESTORE_GUARD, '--as', 'alice'], 'INVALID_ARGUMENT');
      expect(twice.details).to.include({ plugin: 'restore-guard' });
      const unknown = await expectFailure(['plugin', 'remove', 'nope', '--as', 'alice'], 'INVALID_ARGUMENT');
      expect(unknown.details).to.deep.equal({ plugin: 'nope', installed: ['restore-guard'] });
    });

    it('removes a plugin and its data, with a log entry; its rules no longer apply', async () => {
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
      await expectFailure(['take', 'T-2', '--as', 'bob'], 'PLUGIN_REFUSED');
      const removed = await sandbox.ok(['plugin', 'remove', 'wip-limit', '--as', 'alice']);
      expect(removed.plugin).to.include({ name: 'wip-limit' });
      expect((await sandbox.ok(['plugin', 'list'])).plugins).to.deep.equal([]);
      expect((await sandbox.ok(['state'])).log.at(-1)).to.include({ op: 'plugin.remove', plugin: 'wip-limit' });
      await sandbox.ok(['take', 'T-2', '--as', 'bob']);
    });
  });

  describe('allowing and refusing (the example plugins)', () => {
    it('restore-guard lets orchestrator and recovery restore, and refuses anyone else with PLUGIN_REFUSED, state untouched', async () => {
      await sandbox.ok(['plugin', 'add', RESTORE_GUARD, '--as', 'alice']);
      // A reset empties the plugin table with the rest (its force-init snapshot keeps them)...
      const { snapshot } = await sandbox.ok(['init', '--force', '--as', 'orchestrator']);
      expect((await sandbox.ok(['plugin', 'list'])).plugins).to.deep.equal([]);
      // ...so nothing stops this restore, which brings the guard back with the graph.
      await sandbox.ok(['restore', snapshot.id, '--as', 'alice']);
      expect((await sandbox.ok(['plugin', 'list'])).plugins.map((plugin: { name: string }) => plugin.name)).to.deep.equal(['restore-guard']);
      const [preRestore] = (await sandbox.ok(['snapshots'])).snapshots;
      for (const agent of ['alice', 'bob']) {
        const refusal = await expectFailure(['restore', preRestore.id, '--as', agent], 'PLUGIN_REFUSED');
        expect(refusal.details).to.deep.equal({
          plugin: 'restore-guard',
          operation: 'restore',
          agent,
          reason: `only orchestrator and recovery may restore a snapshot, not ${agent}`,
          nodes: [],
        });
      }
      // Other operations are not its business.
      await sandbox.ok(['add-initiative', 'more', '--as', 'alice']);
      await sandbox.ok(['restore', preRestore.id, '--as', 'recovery']);
      const [latest] = (await sandbox.ok(['snapshots'])).snapshots;
      await sandbox.ok(['restore', latest.id, '--as', 'orchestrator']);
    });

    it('wip-limit refuses a take past the limit, shows it in allowed_actions, and follows its data', async () => {
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":2}', '--as', 'alice']);
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
      const taken = await sandbox.ok(['take', 'T-2', '--as', 'bob']);
      expect(taken.context.allowed_actions).to.include('release');
      expect((await sandbox.ok(['context', 'T-3', '--as', 'bob'])).allowed_actions).not.to.include('take');
      expect((await sandbox.ok(['context', 'T-3', '--as', 'carol'])).allowed_actions).to.include('take');
      const refusal = await expectFailure(['take', 'T-3', '--as', 'bob'], 'PLUGIN_REFUSED');
      expect(refusal.details).to.deep.equal({
        plugin: 'wip-limit',
        operation: 'take',
        agent: 'bob',
        reason: 'bob would hold 3 tasks in progress; the limit is 2',
        nodes: ['T-3'],
      });
      // Work already held is never refused: a note on it, a release.
      await sandbox.ok(['add-note', 'T-1', 'still', 'going', '--as', 'bob']);
      await sandbox.ok(['plugin', 'set-data', 'wip-limit', '--data', '{"limit":2,"per_agent":{"bob":3}}', '--as', 'alice']);
      expect((await sandbox.ok(['context', 'T-3', '--as', 'bob'])).allowed_actions).to.include('take');
      await sandbox.ok(['take', 'T-3', '--as', 'bob']);
    });

    it('wip-limit holds when agents race: of six processes taking for bob at once, exactly one wins', async () => {
      for (const id of ['T-4', 'T-5', 'T-6']) await sandbox.ok(task(id));
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
      const results = await Promise.all(['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6'].map((id) => sandbox.run(['take', id, '--as', 'bob'])));
      expect(results.filter((result) => result.code === 0)).to.have.length(1);
      expect(results.filter((result) => result.code === 1).map((result) => result.json.error.code)).to.deep.equal(Array(5).fill('PLUGIN_REFUSED'));
      const status = await sandbox.ok(['status']);
      expect(status.tasks.in_progress).to.have.length(1);
    });

    it('asks the plugins about each item of a batch: a refused item aborts the batch, nothing is written', async () => {
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
      const plan = JSON.stringify({ operations: [{ op: 'take', args: { id: 'T-1' } }, { op: 'take', args: { id: 'T-2' } }] });
      const before = files();
      const result = await sandbox.run(['batch', '--stdin', '--as', 'bob'], { input: plan });
      expect(result.code).to.equal(1);
      expect(result.json.error.details).to.deep.include({ index: 1, op: 'take' });
      expect(result.json.error.details.error.code).to.equal('PLUGIN_REFUSED');
      expect(files()).to.deep.equal(before);
    });
  });

  describe('the PLUGIN_* errors (policy fails closed)', () => {
    it('PLUGIN_API_INCOMPATIBLE: a module declaring an unsupported API version, at install and after an upgrade; the supported ones are named', async () => {
      const module = writePlugin(sandbox, 'future.js', `module.exports = { name: 'future', apiVersion: 2, decide() { return { allow: true }; } };`);
      const error = await expectFailure(['plugin', 'add', module, '--as', 'alice'], 'PLUGIN_API_INCOMPATIBLE');
      expect(error.details).to.deep.equal({ plugin: 'future', declared: 2, supported: [1] });
      writeFileSync(module, allowAll('future'));
      await sandbox.ok(['plugin', 'add', module, '--as', 'alice']);
      writeFileSync(module, `module.exports = { name: 'future', apiVersion: 2, decide() { return { allow: true }; } };`);
      const later = await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_API_INCOMPATIBLE');
      expect(later.details).to.deep.include({ plugin: 'future', declared: 2, supported: [1] });
    });

    it('PLUGIN_RUNTIME_UNAVAILABLE: a missing module, at install and once installed; it can still be removed', async () => {
      const missing = path.join(sandbox.root, 'nowhere.js');
      const atInstall = await expectFailure(['plugin', 'add', missing, '--as', 'alice'], 'PLUGIN_RUNTIME_UNAVAILABLE');
      expect(atInstall.details).to.include({ module: missing, cause: 'missing' });
      const module = writePlugin(sandbox, 'gone.js', allowAll('gone'));
      await sandbox.ok(['plugin', 'add', module, '--as', 'alice']);
      rmSync(module);
      const error = await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE');
      expect(error.details).to.include({ plugin: 'gone', module, cause: 'missing' });
      expect((await sandbox.ok(['context', 'T-1', '--as', 'bob'])).allowed_actions).to.deep.equal([]);
      await sandbox.ok(['plugin', 'remove', 'gone', '--as', 'alice']);
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
    });

    it('PLUGIN_RUNTIME_UNAVAILABLE: a module that fails to load, a decide that throws, and a malformed answer', async () => {
      const broken = writePlugin(sandbox, 'broken.js', `throw new Error('cannot start');`);
      expect((await expectFailure(['plugin', 'add', broken, '--as', 'alice'], 'PLUGIN_RUNTIME_UNAVAILABLE')).details).to.include({ cause: 'load-failed', problem: 'cannot start' });
      const module = writePlugin(sandbox, 'moody.js', allowAll('moody'));
      await sandbox.ok(['plugin', 'add', module, '--as', 'alice']);
      writeFileSync(module, `module.exports = { name: 'moody', apiVersion: 1, decide() { throw new Error('no idea'); } };`);
      expect((await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE')).details).to.include({ plugin: 'moody', cause: 'threw', problem: 'no idea' });
      writeFileSync(module, `module.exports = { name: 'moody', apiVersion: 1, decide() { return 'yes'; } };`);
      expect((await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE')).details).to.include({ plugin: 'moody', cause: 'bad-answer' });
      writeFileSync(module, `module.exports = { name: 'moody', apiVersion: 1, decide() { return { allow: false }; } };`);
      expect((await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE')).details).to.include({ plugin: 'moody', cause: 'bad-answer' });
    });

    it('PLUGIN_RUNTIME_UNAVAILABLE: a decide that does not answer within the time bound is stopped and the operation refused', async () => {
      const module = writePlugin(sandbox, 'slow.js', allowAll('slow'));
      await sandbox.ok(['plugin', 'add', module, '--as', 'alice']);
      writeFileSync(module, `module.exports = { name: 'slow', apiVersion: 1, decide() { for (;;) {} } };`);
      const error = await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE', { TASKDAG_PLUGIN_TIMEOUT_MS: '300' });
      expect(error.details).to.deep.include({ plugin: 'slow', cause: 'timeout', timeout_ms: 300 });
      // The lock was released: the next command runs.
      await sandbox.ok(['plugin', 'remove', 'slow', '--as', 'alice']);
    });

    describe('a plugin cannot outrun its time bound, nor keep the command alive', () => {
      const escapes: [string, string, string][] = [
        ['a getter of its decision that loops', `decide() { return { get allow() { for (;;) {} } }; }`, 'timeout'],
        ['a toJSON of a malformed decision that loops', `decide() { return { allow: 'maybe', toJSON() { for (;;) {} } }; }`, 'timeout'],
        ['a promise whose continuation loops', `async decide() { await null; for (;;) {} }`, 'timeout'],
        ['a thenable', `decide() { return { then(resolve) { resolve({ allow: true }); } }; }`, 'bad-answer'],
        ['a thenable whose then getter loops', `decide() { return { get then() { for (;;) {} } }; }`, 'timeout'],
        ['a getter of its declaration that loops', `get decide() { for (;;) {} }`, 'timeout'],
        ['an interval it schedules', `decide() { setInterval(() => {}, 5); return { allow: true }; }`, 'scheduled'],
        ['an immediate that loops', `decide() { setImmediate(() => { for (;;) {} }); return { allow: true }; }`, 'scheduled'],
        ['process.exit', `decide() { process.exit(0); }`, 'exited'],
      ];
      for (const [escape, decide, cause] of escapes) {
        it(`${escape}: PLUGIN_RUNTIME_UNAVAILABLE (cause ${cause}), state untouched, the lock released, the command exits at once`, async () => {
          const module = writePlugin(sandbox, 'escape.js', allowAll('escape'));
          await sandbox.ok(['plugin', 'add', module, '--as', 'alice']);
          writeFileSync(module, `module.exports = { name: 'escape', apiVersion: 1, ${decide} };`);
          const started = Date.now();
          const error = await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_RUNTIME_UNAVAILABLE', { TASKDAG_PLUGIN_TIMEOUT_MS: '300' });
          expect(error.details).to.include({ plugin: 'escape', cause });
          expect(Date.now() - started, 'the command ends within a few time bounds').to.be.below(5_000);
          await sandbox.ok(['plugin', 'remove', 'escape', '--as', 'alice']);
        });
      }
    });

    it('PLUGIN_DATA_INVALID: data that is not JSON or that the plugin rejects, at install, on set-data, and when found in the state', async () => {
      const notJson = await expectFailure(['plugin', 'add', WIP_LIMIT, '--data', '{limit:2}', '--as', 'alice'], 'PLUGIN_DATA_INVALID');
      expect(notJson.details).to.include({ plugin: 'wip-limit' });
      const rejected = await expectFailure(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":0}', '--as', 'alice'], 'PLUGIN_DATA_INVALID');
      expect(rejected.details).to.deep.equal({ plugin: 'wip-limit', reason: 'limit is a whole number of tasks, at least 1' });
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":2}', '--as', 'alice']);
      await expectFailure(['plugin', 'set-data', 'wip-limit', '--data', '[1', '--as', 'alice'], 'PLUGIN_DATA_INVALID');
      await expectFailure(['plugin', 'set-data', 'wip-limit', '--data', '{"limit":"two"}', '--as', 'alice'], 'PLUGIN_DATA_INVALID');
      // Data changed behind taskdag's back (by hand, or an older snapshot) is checked before every decision.
      const table = readdirSync(stateDir()).find((name) => name.startsWith('plugins.'))!;
      const stored = JSON.parse(readFileSync(path.join(stateDir(), table), 'utf8'));
      stored['wip-limit'].data = { limit: -1 };
      writeFileSync(path.join(stateDir(), table), JSON.stringify(stored));
      const error = await expectFailure(['take', 'T-1', '--as', 'bob'], 'PLUGIN_DATA_INVALID');
      expect(error.details).to.include({ plugin: 'wip-limit' });
    });
  });

  describe('a damaged plugin table', () => {
    it('is the state\'s own damage: STORAGE_ERROR naming the file; init keeps it in a corrupt-recovery snapshot', async () => {
      await sandbox.ok(['plugin', 'add', RESTORE_GUARD, '--as', 'alice']);
      const table = path.join(stateDir(), readdirSync(stateDir()).find((name) => name.startsWith('plugins.'))!);
      writeFileSync(table, '{"restore-guard": ');
      const error = await expectFailure(['take', 'T-1', '--as', 'bob'], 'STORAGE_ERROR');
      expect(error.details).to.include({ cause: 'EINVALID', path: table });
      const recovered = await sandbox.ok(['init']);
      expect(recovered.snapshot.reason).to.equal('corrupt-recovery');
      expect(recovered.snapshot.raw_files.map((file: { name: string }) => file.name)).to.include(`${recovered.snapshot.id}.${path.basename(table)}`);
      expect((await sandbox.ok(['plugin', 'list'])).plugins).to.deep.equal([]);
    });
  });

  describe('plugin data travels with the state', () => {
    it('snapshots keep the plugin table and data; restore brings them back; a damaged one is refused whole', async () => {
      await sandbox.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
      const forced = await sandbox.ok(['init', '--force', '--as', 'orchestrator']);
      expect(forced.snapshot.plugins).to.have.keys(['bytes', 'sha256']);
      expect((await sandbox.ok(['snapshots'])).snapshots[0].plugins).to.deep.equal(forced.snapshot.plugins);
      expect((await sandbox.ok(['plugin', 'list'])).plugins).to.deep.equal([]);
      await sandbox.ok(['restore', forced.snapshot.id, '--as', 'alice']);
      const [plugin] = (await sandbox.ok(['plugin', 'list'])).plugins;
      expect(plugin).to.include({ name: 'wip-limit' });
      expect(plugin.data).to.deep.equal({ limit: 1 });
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
      await expectFailure(['take', 'T-2', '--as', 'bob'], 'PLUGIN_REFUSED');
      // The pre-restore snapshot kept the reset state, which had no plugins.
      const preRestore = (await sandbox.ok(['snapshots'])).snapshots.find((snapshot: { reason: string }) => snapshot.reason === 'pre-restore');
      expect(preRestore).not.to.have.property('plugins');
      // A snapshot whose plugin table does not match its digest is refused before anything changes.
      const pluginsFile = path.join(stateDir(), 'snapshots', `${forced.snapshot.id}.plugins.json`);
      writeFileSync(pluginsFile, readFileSync(pluginsFile, 'utf8').replace('"limit":1', '"limit":9'));
      expect((await expectFailure(['restore', forced.snapshot.id, '--as', 'alice'], 'STORAGE_ERROR')).details).to.include({ path: pluginsFile });
    });
  });
});

/** Plugins and a server (docs/plugins.md: the server runs the plugins of the projects it holds). */
describe('policy plugins and a server', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  const clients: Sandbox[] = [];
  /** The operator's own copy of the `frozen` plugin, on the server's side. */
  let frozenOnServer: string;
  before(async () => {
    linked = await startLinkedServer();
    frozenOnServer = writePlugin(linked.host, 'frozen.js', FROZEN);
    await allowPlugins(linked, { 'wip-limit': WIP_LIMIT, frozen: frozenOnServer });
  });
  after(async () => {
    for (const sandbox of clients) sandbox.remove();
    await linked?.close();
  });

  it('plugin commands in a linked checkout answer REMOTE_UNSUPPORTED_OPERATION', async () => {
    const client = await linkedClient(linked);
    clients.push(client);
    for (const args of [['plugin', 'add', WIP_LIMIT], ['plugin', 'list'], ['plugin', 'remove', 'wip-limit'], ['plugin', 'set-data', 'wip-limit', '--data', '{}']]) {
      const result = await client.run([...args, '--as', 'alice']);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.json.error.code, args.join(' ')).to.equal('REMOTE_UNSUPPORTED_OPERATION');
    }
  });

  it('a push carries the plugins and their data; the server then enforces them, and a pull brings them back', async () => {
    const client = await linkedClient(linked);
    clients.push(client);
    const config = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    writeFileSync(path.join(client.checkout, '.taskdag.json'), JSON.stringify({ project_id: config.project_id }));
    await client.ok(['init']);
    await client.ok(['add-initiative', 'core', '--as', 'alice']);
    for (const id of ['T-1', 'T-2']) await client.ok(task(id));
    await client.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
    await client.ok(['link', linked.origin]);
    await client.ok(['push', '--as', 'alice']);
    await client.ok(['take', 'T-1', '--as', 'bob']);
    const refused = await client.run(['take', 'T-2', '--as', 'bob']);
    expect(refused.code).to.equal(1);
    expect(refused.json.error).to.deep.include({ code: 'PLUGIN_REFUSED' });
    expect((await client.ok(['context', 'T-2', '--as', 'bob'])).allowed_actions).not.to.include('take');
    // A second checkout that has no wip-limit of its own cannot pull it: nothing is written.
    const other = new Sandbox();
    clients.push(other);
    mkdirSync(other.checkout, { recursive: true });
    const unlinked = () => writeFileSync(path.join(other.checkout, '.taskdag.json'), JSON.stringify({ project_id: config.project_id }));
    const linkedAgain = () => writeFileSync(path.join(other.checkout, '.taskdag.json'), JSON.stringify({ project_id: config.project_id, backend: config.backend }));
    linkedAgain();
    await loginAt(other, linked.password);
    const notHere = await other.run(['pull', '--as', 'carol']);
    expect(notHere.code, notHere.stdout).to.equal(1);
    expect(notHere.json.error.code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(notHere.json.error.details).to.deep.equal({ plugin: 'wip-limit', installed: [] });
    // Once it installed its own, it pulls the project, plugin data included, run by its own module.
    const ownCopy = writePlugin(other, 'wip-limit.js', readFileSync(WIP_LIMIT, 'utf8'));
    unlinked();
    expect((await other.run(['status'])).json.error, 'no local state was written').to.deep.include({ code: 'STORAGE_ERROR' });
    await other.ok(['init']);
    await other.ok(['plugin', 'add', ownCopy, '--data', '{"limit":5}', '--as', 'carol']);
    linkedAgain();
    await other.ok(['pull', '--force', '--as', 'carol']);
    unlinked();
    const [plugin] = (await other.ok(['plugin', 'list'])).plugins;
    expect(plugin).to.include({ name: 'wip-limit', module: ownCopy });
    expect(plugin.data).to.deep.equal({ limit: 1 });
    // A forced push replaces the server's plugin data with the pushing side's (spec 4.5 rule 4).
    await other.ok(['plugin', 'set-data', 'wip-limit', '--data', '{"limit":2}', '--as', 'carol']);
    writeFileSync(path.join(other.checkout, '.taskdag.json'), JSON.stringify({ project_id: config.project_id, backend: config.backend }));
    await other.ok(['push', '--force', '--as', 'carol']);
    await client.ok(['take', 'T-1', '--as', 'bob']);
    await client.ok(['take', 'T-2', '--as', 'bob']);
  });

  it("the server's plugins decide on a push: a refused push changes nothing on either side", async () => {
    const client = await linkedClient(linked);
    clients.push(client);
    const config = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    const local = () => writeFileSync(path.join(client.checkout, '.taskdag.json'), JSON.stringify({ project_id: config.project_id }));
    const linkedAgain = () => writeFileSync(path.join(client.checkout, '.taskdag.json'), JSON.stringify(config));
    const frozen = writePlugin(client, 'frozen.js', FROZEN);
    local();
    await client.ok(['init']);
    await client.ok(['plugin', 'add', frozen, '--as', 'alice']);
    linkedAgain();
    await client.ok(['push', '--as', 'alice']);
    local();
    await client.ok(['add-initiative', 'later', '--as', 'alice']);
    linkedAgain();
    const remoteBefore = await client.ok(['state']);
    const refused = await client.run(['push', '--as', 'alice']);
    expect(refused.code, refused.stdout).to.equal(1);
    expect(refused.json.error.code).to.equal('PLUGIN_REFUSED');
    expect(refused.json.error.details).to.include({ plugin: 'frozen', operation: 'push', agent: 'alice', reason: 'this project is frozen' });
    expect(await client.ok(['state'])).to.deep.equal(remoteBefore);
  });
});

/**
 * A pushed plugin table names plugins; only the server's operator says which code runs them
 * (server.json `plugins`). Attacks through the HTTP API of a real `server run`, and the CLI.
 */
describe('a server runs only the plugins its operator lists', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  let client: Sandbox;
  let bearer: string;
  let project: string;
  /** A module that leaves a file behind as soon as anything loads it. */
  let trap: string;
  let marker: string;
  const transfer = (method: 'GET' | 'PUT', body?: unknown) =>
    request(linked.origin, method, `/v1/projects/${project}/transfer`, { headers: { Authorization: `Bearer ${bearer}` }, body });
  const op = (operation: string, args: Record<string, unknown>, agent = 'bob') =>
    request(linked.origin, 'POST', `/v1/projects/${project}/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });
  /** The server's project with `plugins` pushed over it (forced): the raw answer. */
  const pushPlugins = async (plugins: unknown) => {
    const { state } = (await transfer('GET')).json;
    return transfer('PUT', { state, plugins, expected_revision: null, force: true, agent: 'mallory' });
  };
  const entry = (name: string, extra: Record<string, unknown> = {}) => ({ name, api_version: 1, installed_at: '2026-01-01T00:00:00.000Z', installed_by: 'mallory', data: null, ...extra });
  const revision = async () => (await transfer('GET')).json.state.revision as number;

  before(async () => {
    linked = await startLinkedServer();
    marker = path.join(linked.host.root, 'loaded.marker');
    trap = writePlugin(linked.host, 'trap.js', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'loaded');\n${allowAll('trap')}`);
    const stuck = writePlugin(linked.host, 'stuck.js', `module.exports = { name: 'stuck', apiVersion: 1, decide() { return { get allow() { for (;;) {} } }; } };`);
    const quitter = writePlugin(linked.host, 'quitter.js', `module.exports = { name: 'quitter', apiVersion: 1, decide() { process.exit(3); } };`);
    linked.env.TASKDAG_PLUGIN_TIMEOUT_MS = '300';
    await allowPlugins(linked, { 'wip-limit': WIP_LIMIT, stuck, quitter });
    client = await linkedClient(linked);
    project = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8')).project_id;
    bearer = (await login(linked.origin, linked.password)).json.bearer;
    await client.ok(['add-initiative', 'core', '--as', 'alice']);
    for (const id of ['T-1', 'T-2']) await client.ok(task(id));
  });
  after(async () => {
    client?.remove();
    await linked?.close();
  });

  it('a pushed table naming a plugin the server does not run is 409 PLUGIN_NOT_ALLOWED: nothing is loaded, nothing changes', async () => {
    const before = await revision();
    const answer = await pushPlugins({ trap: entry('trap', { module: trap }) });
    expect(answer.status, answer.text).to.equal(409);
    expect(answer.json.error.code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(answer.json.error.details).to.deep.equal({ plugin: 'trap', allowed: ['quitter', 'stuck', 'wip-limit'] });
    expect(existsSync(marker), 'the module was never loaded').to.equal(false);
    expect(await revision()).to.equal(before);
    expect((await op('take', { id: 'T-1' })).status, 'the project still works').to.equal(200);
    expect((await op('release', { id: 'T-1' })).status).to.equal(200);
  });

  it('an allowed name runs the operator\'s module, whatever module the push names; pulls never see a module path', async () => {
    const answer = await pushPlugins({ 'wip-limit': entry('wip-limit', { module: trap, data: { limit: 1 } }) });
    expect(answer.status, answer.text).to.equal(200);
    expect((await op('take', { id: 'T-1' })).status).to.equal(200);
    const refused = await op('take', { id: 'T-2' });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.error).to.deep.include({ code: 'PLUGIN_REFUSED' });
    expect(refused.json.error.details).to.include({ plugin: 'wip-limit' });
    expect(existsSync(marker), 'the pushed module path was never loaded').to.equal(false);
    const pulled = (await transfer('GET')).json.plugins;
    expect(pulled['wip-limit']).to.deep.equal(entry('wip-limit', { data: { limit: 1 } }));
    expect(JSON.stringify(pulled)).not.to.include(WIP_LIMIT);
    await op('release', { id: 'T-1' });
  });

  it('data the allowed plugin rejects is refused before the push commits (PLUGIN_DATA_INVALID), so no push leaves a table that refuses everything', async () => {
    const before = await revision();
    const answer = await pushPlugins({ 'wip-limit': entry('wip-limit', { data: { limit: 0 } }) });
    expect(answer.status, answer.text).to.equal(400);
    expect(answer.json.error.code).to.equal('PLUGIN_DATA_INVALID');
    expect(await revision()).to.equal(before);
  });

  it('the CLI: push of a table with a plugin the server does not run exits 1 with PLUGIN_NOT_ALLOWED, the server untouched', async () => {
    const checkout = path.join(client.checkout, '.taskdag.json');
    const config = JSON.parse(readFileSync(checkout, 'utf8'));
    const mine = writePlugin(client, 'mine.js', allowAll('mine'));
    const pulled = await client.run(['pull', '--force', '--as', 'alice']);
    expect(pulled.json.error, 'wip-limit is not installed in this checkout, so it cannot pull it').to.deep.include({ code: 'PLUGIN_NOT_ALLOWED' });
    writeFileSync(checkout, JSON.stringify({ project_id: config.project_id }));
    await client.ok(['init']);
    await client.ok(['plugin', 'add', mine, '--as', 'alice']);
    writeFileSync(checkout, JSON.stringify(config));
    const before = await revision();
    const pushed = await client.run(['push', '--force', '--as', 'alice']);
    expect(pushed.code, pushed.stdout).to.equal(1);
    expect(pushed.json.error.code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(pushed.json.error.details).to.include({ plugin: 'mine' });
    expect(await revision()).to.equal(before);
  });

  it('an allowed plugin that outruns its bound is stopped: 500 PLUGIN_RUNTIME_UNAVAILABLE, and the server keeps answering', async () => {
    expect((await pushPlugins({ stuck: entry('stuck') })).status).to.equal(200);
    const started = Date.now();
    const answer = await op('take', { id: 'T-2' });
    expect(answer.status, answer.text).to.equal(500);
    expect(answer.json.error.code).to.equal('PLUGIN_RUNTIME_UNAVAILABLE');
    expect(answer.json.error.details).to.include({ plugin: 'stuck', cause: 'timeout' });
    expect(Date.now() - started).to.be.below(5_000);
    expect((await request(linked.origin, 'GET', `/v1/projects/${project}/ui/snapshot`, { headers: { Authorization: `Bearer ${bearer}` } })).status).to.equal(200);
    // The operator's own bad plugin cannot shut the project either: a push that drops it is not put to it.
    expect((await pushPlugins({})).status).to.equal(200);
    expect((await op('take', { id: 'T-2' })).status).to.equal(200);
  });

  it('an allowed plugin that calls process.exit ends only its worker: 500 PLUGIN_RUNTIME_UNAVAILABLE (exited), the server lives on', async () => {
    expect((await pushPlugins({ quitter: entry('quitter') })).status).to.equal(200);
    const answer = await op('add-note', { id: 'T-1', text: 'hello' });
    expect(answer.status, answer.text).to.equal(500);
    expect(answer.json.error.details).to.include({ plugin: 'quitter', cause: 'exited' });
    expect(linked.server.child.exitCode, 'the server process is still running').to.equal(null);
    expect((await pushPlugins({})).status).to.equal(200);
    expect((await op('add-note', { id: 'T-1', text: 'hello' })).status).to.equal(200);
  });

  it('a plugin the operator takes off the list refuses operations (PLUGIN_NOT_ALLOWED) but not the push that drops it', async () => {
    expect((await pushPlugins({ 'wip-limit': entry('wip-limit', { data: { limit: 5 } }) })).status).to.equal(200);
    await allowPlugins(linked, { stuck: path.join(linked.host.root, 'plugins', 'stuck.js') });
    const refused = await op('add-note', { id: 'T-1', text: 'hello' });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.json.error.code).to.equal('PLUGIN_NOT_ALLOWED');
    expect((await pushPlugins({})).status).to.equal(200);
    expect((await op('add-note', { id: 'T-1', text: 'hello' })).status).to.equal(200);
  });
});
