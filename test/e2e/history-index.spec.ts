import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyOf } from '../../domain/history.js';
import type { LogEntry } from '../../domain/model.js';
import { Sandbox } from '../support/cli.js';

/** `history` through the history index (docs/storage.md) on the real binary, across checkpoint rewrites, a reset and a restore. */
describe('e2e: history and its index', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const ids = ['T-1', 'T-12', 'T-late', 'G-1', 'K-1'];

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
  });
  after(() => sandbox.remove());

  const run = (...args: string[]) => sandbox.ok([...args, '--as', 'planner']);
  const projectDir = () => {
    const { project_id: projectId } = JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8')) as { project_id: string };
    return path.join(sandbox.home, '.taskdag', 'projects', projectId);
  };
  /** Every id's history as `history` prints it, against the same filter over the whole log `state` prints. */
  async function expectHistoriesOfTheWholeLog(): Promise<void> {
    const log = (await sandbox.ok(['state'])).log as LogEntry[];
    for (const id of ids) {
      if (!log.some((entry) => entry.node === id)) continue;
      expect(await sandbox.ok(['history', id, '--limit', '1000']), id).to.deep.equal(historyOf(log, id, 1000));
      expect(await sandbox.ok(['history', id, '--limit', '2']), `${id} --limit 2`).to.deep.equal(historyOf(log, id, 2));
    }
  }
  /** One commit of 20 notes of 2 KB (past the 32 KiB after which a commit rewrites the checkpoint). */
  function notesBatch(target: string, text: string): string {
    const file = path.join(sandbox.root, `notes-${target}-${text.length}.json`);
    const note = { op: 'add-note', args: { id: target, text: `${text} ${'x'.repeat(2_000)}` } };
    writeFileSync(file, JSON.stringify({ operations: Array.from({ length: 20 }, () => note) }));
    return file;
  }
  const indexFiles = () => readdirSync(projectDir()).filter((name) => name.startsWith('history.'));

  it('answers as the whole log through checkpoint rewrites: ids that prefix others, ids named before they exist', async () => {
    await run('add-initiative', 'core', '--desc', 'd');
    await run('add-gate', 'G-1', '--initiative', 'core', '--title', 'g', '--body', 'b', '--purpose', 'p');
    await run('add-knowledge', 'K-1', '--initiative', 'core', '--title', 'k', '--body', 'b', '--scope-tags', 'x');
    for (const id of ['T-1', 'T-12']) await run('add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '');
    await run('add-note', 'T-12', 'waits on T-late and T-1. (not T-12x)');
    await run('batch', '--file', notesBatch('T-12', 'see T-1: and G-1'));
    await run('add-task', 'T-late', '--initiative', 'core', '--title', 'late', '--body', 'b', '--acceptance', 'a', '--blocked-by', 'T-1');
    await run('batch', '--file', notesBatch('T-1', 'K-1 applies; T-late next'));
    expect(indexFiles()).to.deep.equal(['history.1.idx']);
    await expectHistoriesOfTheWholeLog();
  });

  it('after a reset and a restore, reads the index of the restored generation alone', async () => {
    await run('init', '--force');
    expect(indexFiles()).to.deep.equal(['history.2.idx']);
    const [snapshot] = (await sandbox.ok(['snapshots'])).snapshots as { id: string; reason: string }[];
    expect(snapshot!.reason).to.equal('force-init');
    await run('restore', snapshot!.id);
    expect(indexFiles()).to.deep.equal(['history.3.idx']);
    await expectHistoriesOfTheWholeLog();
    // A stale index under the restored generation's name (another ledger's) is not believed.
    writeFileSync(path.join(projectDir(), 'history.3.idx'), readFileSync(path.join(projectDir(), 'history.3.idx')).subarray(0, 100));
    await run('batch', '--file', notesBatch('T-late', 'after the restore, T-12'));
    await expectHistoriesOfTheWholeLog();
  });
});
