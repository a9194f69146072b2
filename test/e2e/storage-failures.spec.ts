import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { projectDir, treeDigest } from '../support/durability.js';

const BIG_BODY = 'x'.repeat(16 * 1024); // more than a tmpfs page, so an append needs new space
const task = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', BIG_BODY, '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice'];

/**
 * A full disk and a read-only state directory, for real: TASKDAG_HOME is a small tmpfs mounted
 * for the test (filled up, or remounted read-only). Mounting needs root; elsewhere the suite is
 * skipped and says why. Every refused write must be STORAGE_ERROR with the OS code in
 * details.cause, and leave the previous state byte-for-byte intact and readable.
 */
describe('storage failures: a full disk and a read-only state directory', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let home: string;
  let snapshotId: string;

  before(function () {
    const probe = new Sandbox();
    try {
      const mountpoint = path.join(probe.root, 'probe');
      mkdirSync(mountpoint);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountpoint], { stdio: 'ignore' });
      execFileSync('umount', [mountpoint], { stdio: 'ignore' });
    } catch {
      this.skip(); // mounting a tmpfs needs root (CAP_SYS_ADMIN); nothing honest to test without it
    } finally {
      probe.remove();
    }
  });

  beforeEach(async () => {
    sandbox = new Sandbox();
    home = path.join(sandbox.home, '.taskdag');
    mkdirSync(home, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', home]);
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok(task('T-1'));
    snapshotId = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot.id;
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok(task('T-live'));
  });

  afterEach(() => {
    execFileSync('umount', ['-l', home]);
    sandbox.remove();
  });

  /** Every command that writes is refused with STORAGE_ERROR `cause`, and nothing changes. */
  const everyWriteRefused = async (cause: string) => {
    const state = (await sandbox.run(['state'])).stdout;
    const files = treeDigest(projectDir(sandbox));
    const writes = [
      task('T-2'),
      ['batch', '--stdin', '--as', 'alice'],
      ['init', '--force', '--as', 'alice'],
      ['restore', snapshotId, '--as', 'alice'],
    ];
    for (const args of writes) {
      const input = JSON.stringify({ operations: [{ op: 'add-task', args: { id: 'T-3', initiative: 'core', title: 't', body: BIG_BODY, acceptance: 'a', blocked_by: [] } }] });
      const result = await sandbox.run(args, { input });
      expect(result.code, `${args[0]}: ${result.stdout}`).to.equal(1);
      expect(result.json.error.code, args[0]).to.equal('STORAGE_ERROR');
      expect(result.json.error.details.cause, args[0]).to.equal(cause);
    }
    expect((await sandbox.run(['state'])).stdout).to.equal(state);
    expect(treeDigest(projectDir(sandbox))).to.deep.equal(files);
    return state;
  };

  it('a full disk: every write fails with ENOSPC, the state stays intact, and writes work again once there is room', async () => {
    const filler = path.join(home, 'filler');
    const fd = openSync(filler, 'w');
    try {
      for (;;) writeSync(fd, Buffer.alloc(4096, 1));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    } finally {
      closeSync(fd);
    }
    const before = JSON.parse(await everyWriteRefused('ENOSPC'));
    rmSync(filler);
    await sandbox.ok(task('T-2'));
    const after = (await sandbox.run(['state'])).json;
    expect(after.revision).to.equal(before.revision + 1);
    expect(after.nodes).to.have.keys('T-live', 'T-2');
  });

  it('a read-only state directory: every write fails with EROFS, and the state can still be read', async () => {
    execFileSync('mount', ['-o', 'remount,ro', home]);
    await everyWriteRefused('EROFS');
    expect((await sandbox.run(['show', 'T-live'])).code).to.equal(0);
    expect((await sandbox.ok(['snapshots'])).snapshots).to.have.length(1);
  });
});
