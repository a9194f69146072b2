import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';
import { linkedClient, loginAt, startLinkedServer, type LinkedServer } from '../support/linked-server.js';

const task = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'ok', '--blocked-by', ''];

/** push and pull (spec 4.5 rules 1-6) and the offline workflow, against a real server. */
describe('push and pull', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  const clients: Sandbox[] = [];
  const client = async (options?: { init?: boolean }) => {
    const made = await linkedClient(linked, options);
    clients.push(made);
    return made;
  };
  const checkoutOf = (sandbox: Sandbox) => JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8'));
  /** A second checkout of the same project (as git would share .taskdag.json), on another machine. */
  const sameProject = async (of: Sandbox) => {
    const other = new Sandbox();
    clients.push(other);
    mkdirSync(other.checkout, { recursive: true });
    writeFileSync(path.join(other.checkout, '.taskdag.json'), JSON.stringify(checkoutOf(of)));
    await loginAt(other, linked.password);
    return other;
  };
  /** The checkout working on its local state: `backend` removed, project id kept. */
  const unlink = (sandbox: Sandbox) => {
    const { backend: _backend, ...rest } = checkoutOf(sandbox);
    writeFileSync(path.join(sandbox.checkout, '.taskdag.json'), JSON.stringify(rest));
  };
  const relink = (sandbox: Sandbox) => sandbox.ok(['link', linked.origin]);
  const remoteState = (sandbox: Sandbox) => sandbox.ok(['state']);
  const localState = async (sandbox: Sandbox) => {
    const saved = checkoutOf(sandbox);
    unlink(sandbox);
    try {
      return await sandbox.ok(['state']);
    } finally {
      writeFileSync(path.join(sandbox.checkout, '.taskdag.json'), JSON.stringify(saved));
    }
  };

  before(async () => {
    linked = await startLinkedServer();
  });
  after(async () => {
    for (const sandbox of clients) sandbox.remove();
    await linked?.close();
  });

  it('rule 1: never provisions; an absent project on the server is PROJECT_NOT_FOUND both ways', async () => {
    const sandbox = await client({ init: false });
    const before = linked.projectsOnDisk();
    for (const command of ['push', 'pull']) {
      const result = await sandbox.run([command, '--as', 'alice']);
      expect(result.code, command).to.equal(1);
      expect(result.json.error.code, command).to.equal(command === 'push' ? 'STORAGE_ERROR' : 'PROJECT_NOT_FOUND');
    }
    // With a local project to push, still nothing is created on the server.
    unlink(sandbox);
    await sandbox.ok(['init']);
    await relink(sandbox);
    expect((await sandbox.run(['push', '--as', 'alice'])).json.error.code).to.equal('PROJECT_NOT_FOUND');
    expect(linked.projectsOnDisk()).to.deep.equal(before);
  });

  it('rule 2: without a baseline, push only into a pristine server project and pull only into an absent or pristine local one', async () => {
    const sandbox = await client();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']); // the server project is no longer pristine
    unlink(sandbox);
    await sandbox.ok(['init']);
    await sandbox.ok(['add-initiative', 'local', '--as', 'alice']);
    await relink(sandbox);
    const localBefore = await localState(sandbox);
    const remoteBefore = await remoteState(sandbox);
    for (const command of ['push', 'pull']) {
      const refused = await sandbox.run([command, '--as', 'alice']);
      expect(refused.code, command).to.equal(1);
      expect(refused.json.error.code, command).to.equal('STATE_REVISION_CONFLICT');
      expect(refused.json.error.details).to.include({ direction: command, expected_revision: null });
    }
    expect(await localState(sandbox)).to.deep.equal(localBefore);
    expect(await remoteState(sandbox)).to.deep.equal(remoteBefore);
    const baselines = path.join(sandbox.home, '.taskdag', 'remote-transfer-baselines');
    expect(existsSync(baselines)).to.equal(false);

    // A fresh checkout (no local project) pulls; a pristine server accepts a push.
    const other = await sameProject(sandbox);
    const pulled = await other.ok(['pull', '--as', 'bob']);
    expect(pulled).to.include({ direction: 'pull', transferred: true, forced: false, replaced_revision: null });
    expect(Object.keys((await localState(other)).initiatives)).to.deep.equal(['core']);
    const fresh = await client();
    unlink(fresh);
    await fresh.ok(['init']);
    await fresh.ok(['add-initiative', 'offline', '--as', 'alice']);
    await relink(fresh);
    expect(await fresh.ok(['push', '--as', 'alice'])).to.include({ transferred: true, replaced_revision: 0 });
    expect(Object.keys((await remoteState(fresh)).initiatives)).to.deep.equal(['offline']);
  });

  it('rule 3: two checkouts racing a push: one wins, the other gets the conflict naming both revisions, nothing is lost', async () => {
    const first = await client();
    const second = await sameProject(first);
    await first.ok(['pull', '--as', 'alice']);
    await second.ok(['pull', '--as', 'bob']);
    for (const [sandbox, id] of [[first, 'T-first'], [second, 'T-second']] as const) {
      unlink(sandbox);
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      await sandbox.ok([...task(id), '--as', 'alice']);
      await relink(sandbox);
    }
    const localBefore = [await localState(first), await localState(second)];
    const results = await Promise.all([first.run(['push', '--as', 'alice']), second.run(['push', '--as', 'bob'])]);
    const winners = results.filter((result) => result.code === 0);
    const losers = results.filter((result) => result.code !== 0);
    expect(winners).to.have.length(1);
    expect(losers).to.have.length(1);
    const conflict = losers[0]!.json.error;
    expect(conflict.code).to.equal('STATE_REVISION_CONFLICT');
    expect(conflict.details.destination_revision).to.equal(winners[0]!.json.destination_revision);
    expect(conflict.details.expected_revision).to.be.a('number').and.not.equal(conflict.details.destination_revision);
    expect(conflict.message).to.include(`revision ${conflict.details.destination_revision}`).and.include(`revision ${conflict.details.expected_revision}`);
    // Nothing lost: the winner's work is on the server, the loser's is still in its local state.
    const winnerId = results[0]!.code === 0 ? 'T-first' : 'T-second';
    const loser = results[0]!.code === 0 ? second : first;
    expect(Object.keys((await remoteState(first)).nodes)).to.deep.equal([winnerId]);
    expect(await localState(loser)).to.deep.equal(localBefore[loser === first ? 0 : 1]);
    // The loser's pull is refused too (its local state moved): only --force picks a side.
    expect((await loser.run(['pull', '--as', 'bob'])).json.error.code).to.equal('STATE_REVISION_CONFLICT');
  });

  it('rule 4: --force replaces the whole destination and the winner logs transfer.push / transfer.pull with the replaced revision', async () => {
    const sandbox = await client();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok([...task('T-remote'), '--as', 'alice']);
    await sandbox.ok(['take', 'T-remote', '--as', 'bob']);
    const replacedRevision = (await remoteState(sandbox)).revision;
    unlink(sandbox);
    await sandbox.ok(['init']);
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok([...task('T-local'), '--as', 'alice']);
    await relink(sandbox);
    const pushed = await sandbox.ok(['push', '--force', '--as', 'alice']);
    expect(pushed).to.include({ forced: true, transferred: true, replaced_revision: replacedRevision });
    const remote = await remoteState(sandbox);
    expect(Object.keys(remote.nodes)).to.deep.equal(['T-local']);
    expect(remote.log.at(-1)).to.include({ op: 'transfer.push', by: 'alice', replaced_revision: replacedRevision, revision: remote.revision });
    expect(remote.log.some((entry: any) => entry.node === 'T-remote')).to.equal(false);

    await sandbox.ok(['add-note', 'T-local', 'on the server', '--as', 'bob']);
    const localRevision = (await localState(sandbox)).revision;
    unlink(sandbox);
    await sandbox.ok(['add-note', 'T-local', 'offline', '--as', 'alice']);
    await relink(sandbox);
    expect((await sandbox.run(['pull', '--as', 'alice'])).json.error.code).to.equal('STATE_REVISION_CONFLICT');
    const pulled = await sandbox.ok(['pull', '--force', '--as', 'alice']);
    expect(pulled).to.include({ forced: true, replaced_revision: localRevision + 1 });
    const local = await localState(sandbox);
    expect(local.nodes['T-local'].notes.map((note: any) => note.text)).to.deep.equal(['on the server']);
    expect(local.log.at(-1)).to.include({ op: 'transfer.pull', replaced_revision: localRevision + 1 });
  });

  it('keeps baselines under $TASKDAG_HOME/remote-transfer-baselines/, scoped by origin and project; link copies none', async () => {
    const sandbox = await client();
    await sandbox.ok(['pull', '--as', 'alice']);
    const { project_id } = checkoutOf(sandbox);
    const file = path.join(sandbox.home, '.taskdag', 'remote-transfer-baselines', encodeURIComponent(linked.origin), `${project_id}.json`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.include({ origin: linked.origin, project_id });
    // Another origin for the same project has no baseline: the refusal without one applies.
    const before = fileTree(path.join(sandbox.home, '.taskdag', 'remote-transfer-baselines'));
    await sandbox.ok(['link', linked.origin.replace('127.0.0.1', 'localhost'), '--replace=true']);
    expect(fileTree(path.join(sandbox.home, '.taskdag', 'remote-transfer-baselines'))).to.deep.equal(before);
    expect((await sandbox.run(['pull', '--as', 'alice'])).json.error.code).to.equal('AUTH_INVALID');
  });

  it('the offline workflow of the README: pull, remove backend, work locally, link, login, push', async () => {
    const sandbox = await client();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok([...task('T-shared'), '--as', 'alice']);
    await sandbox.ok(['pull', '--as', 'alice']);
    unlink(sandbox);
    expect(checkoutOf(sandbox)).not.to.have.property('backend');
    await sandbox.ok(['take', 'T-shared', '--as', 'alice']);
    await sandbox.ok(['submit', 'T-shared', '--note', 'done offline', '--as', 'alice']);
    await sandbox.ok(['logout', '--server', linked.origin]);
    await relink(sandbox);
    expect((await sandbox.run(['push', '--as', 'alice'])).json.error.code).to.equal('AUTH_INVALID');
    await loginAt(sandbox, linked.password);
    expect(await sandbox.ok(['push', '--as', 'alice'])).to.include({ transferred: true, forced: false });
    expect((await sandbox.ok(['show', 'T-shared'])).node.status).to.equal('submitted');
    // Nothing changed since: a second push sends nothing.
    expect(await sandbox.ok(['push', '--as', 'alice'])).to.include({ transferred: false });
  });
});
