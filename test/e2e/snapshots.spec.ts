import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { projectDir, treeDigest } from '../support/durability.js';

const TASK = ['--initiative', 'core', '--title', 'A task', '--body', '', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice'];

describe('snapshots, init --force and restore (spec 2.5, 4.4)', () => {
  let sandbox: Sandbox;
  let dir: string;

  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    dir = projectDir(sandbox);
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok(['add-task', 'T-1', ...TASK]);
  });
  afterEach(() => sandbox.remove());

  const state = async () => (await sandbox.run(['state'])).stdout;
  const snapshotFile = (id: string, suffix: string) => path.join(dir, 'snapshots', `${id}${suffix}`);

  it('init --force needs an agent, and then snapshots the previous state (force-init) and starts afresh', async () => {
    const before = await state();
    const refused = await sandbox.run(['init', '--force']);
    expect(refused.code).to.equal(1);
    expect(refused.json.error.code).to.equal('MISSING_AGENT');
    expect(await state()).to.equal(before);

    const reset = await sandbox.ok(['init', '--force', '--as', 'alice']);
    expect(reset.created).to.equal(true);
    expect(reset.snapshot).to.include({ reason: 'force-init', bytes: Buffer.byteLength(before) });
    expect(reset.snapshot.id).to.match(/^\d{8}T\d{9}Z-force-init$/);
    expect(readFileSync(snapshotFile(reset.snapshot.id, '.state.json'), 'utf8')).to.equal(before);
    const fresh = JSON.parse(await state());
    expect(fresh).to.include({ version: 1, revision: 0, fence_generation: 2 });
    expect(fresh.nodes).to.deep.equal({});
  });

  it('plain init over a readable state changes nothing', async () => {
    const before = treeDigest(dir);
    const again = await sandbox.ok(['init']);
    expect(again.created).to.equal(false);
    expect(again).not.to.have.property('snapshot');
    expect(treeDigest(dir)).to.deep.equal(before);
  });

  it('init over a corrupt state keeps its raw files in a corrupt-recovery snapshot, then starts afresh', async () => {
    writeFileSync(path.join(dir, 'tasks.json'), '{"version":1,"nodes":');
    const result = await sandbox.ok(['init']);
    expect(result.snapshot.reason).to.equal('corrupt-recovery');
    expect(readFileSync(snapshotFile(result.snapshot.id, '.state.json'), 'utf8')).to.equal('{"version":1,"nodes":');
    expect(readdirSync(path.join(dir, 'snapshots'))).to.include(`${result.snapshot.id}.ledger.1.jsonl`);
    expect(JSON.parse(await state()).revision).to.equal(0);
  });

  it('lists only complete pairs whose metadata id matches the file name, newest first', async () => {
    const first = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
    const second = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
    const third = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
    expect((await sandbox.ok(['snapshots'])).snapshots).to.deep.equal([third, second, first]);

    rmSync(snapshotFile(third.id, '.state.json'));
    const metadata = JSON.parse(readFileSync(snapshotFile(second.id, '.meta.json'), 'utf8'));
    writeFileSync(snapshotFile(second.id, '.meta.json'), JSON.stringify({ ...metadata, id: first.id }));
    expect((await sandbox.ok(['snapshots'])).snapshots).to.deep.equal([first]);
  });

  it('restore brings the snapshot back, keeps the displaced state as pre-restore, and logs who restored', async () => {
    const snapshot = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
    await sandbox.ok(['add-initiative', 'other', '--as', 'alice']);
    const displaced = await state();

    expect(await sandbox.ok(['restore', snapshot.id, '--as', 'bob'])).to.deep.equal({ snapshot });
    const restored = JSON.parse(await state());
    const original = JSON.parse(readFileSync(snapshotFile(snapshot.id, '.state.json'), 'utf8'));
    expect(restored.nodes).to.deep.equal(original.nodes);
    expect(restored.log.slice(0, -1)).to.deep.equal(original.log);
    expect(restored.log.at(-1)).to.include({ op: 'restore', by: 'bob', snapshot: snapshot.id, revision: restored.revision, node: null });
    expect(restored.revision).to.be.greaterThan(JSON.parse(displaced).revision);
    expect(restored.fence_generation).to.equal(3);

    const [preRestore] = (await sandbox.ok(['snapshots'])).snapshots;
    expect(preRestore.reason).to.equal('pre-restore');
    expect(readFileSync(snapshotFile(preRestore.id, '.state.json'), 'utf8')).to.equal(displaced);
    await sandbox.ok(['add-task', 'T-2', ...TASK]);
  });

  it('state prints the same bytes for the same state', async () => {
    expect(await state()).to.equal(await state());
  });

  describe('restore refuses bad input and leaves every byte of the state directory as it was', () => {
    let snapshot: any;
    let before: Record<string, string>;

    beforeEach(async () => {
      snapshot = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
      await sandbox.ok(['add-initiative', 'live', '--as', 'alice']);
    });

    const refused = async (args: string[], code: string) => {
      before = treeDigest(dir);
      const result = await sandbox.run(['restore', ...args]);
      expect(result.code, result.stdout).to.equal(1);
      expect(result.json.error.code).to.equal(code);
      expect(treeDigest(dir)).to.deep.equal(before);
      return result.json.error;
    };
    const rewrite = (suffix: string, edit: (text: string) => string) => {
      const file = snapshotFile(snapshot.id, suffix);
      writeFileSync(file, edit(readFileSync(file, 'utf8')));
    };
    const rewriteState = (edit: (state: any) => void) => {
      const file = snapshotFile(snapshot.id, '.state.json');
      const value = JSON.parse(readFileSync(file, 'utf8'));
      edit(value);
      const text = JSON.stringify(value);
      writeFileSync(file, text);
      rewrite('.meta.json', (meta) =>
        JSON.stringify({ ...JSON.parse(meta), bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') }),
      );
    };

    it('without an agent (MISSING_AGENT) or a snapshot id (MISSING_FIELD)', async () => {
      await refused([snapshot.id], 'MISSING_AGENT');
      await refused(['--as', 'alice'], 'MISSING_FIELD');
    });

    it('for an id that is not a snapshot id, or names no snapshot', async () => {
      await refused(['../../tasks', '--as', 'alice'], 'INVALID_ARGUMENT');
      const missing = await refused(['20000101T000000000Z-force-init', '--as', 'alice'], 'STORAGE_ERROR');
      expect(missing.details.cause).to.equal('ENOENT');
    });

    it('for an incomplete pair', async () => {
      rmSync(snapshotFile(snapshot.id, '.state.json'));
      await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR');
    });

    it('for a wrong sha256, a wrong size or a metadata id that does not match', async () => {
      rewrite('.state.json', (text) => text.replace('A task', 'B task'));
      expect((await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR')).message).to.contain('sha256');
      rewrite('.state.json', (text) => text + ' ');
      expect((await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR')).message).to.contain('bytes');
      rewrite('.meta.json', (text) => JSON.stringify({ ...JSON.parse(text), id: '20000101T000000000Z-force-init' }));
      expect((await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR')).message).to.contain('does not match');
    });

    it('for metadata that is not JSON or lacks a field', async () => {
      rewrite('.meta.json', (text) => JSON.stringify({ ...JSON.parse(text), reason: undefined }));
      await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR');
      rewrite('.meta.json', () => 'garbage');
      await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR');
    });

    const brokenStates: [string, (state: any) => void][] = [
      ['a wrong schema version', (state) => (state.version = 2)],
      ['a missing collection', (state) => delete state.log],
      ['a node of an unknown status', (state) => (state.nodes['T-1'].status = 'ready')],
      ['a node without tags', (state) => delete state.nodes['T-1'].tags],
      ['an edge to a missing node', (state) => state.edges.push({ from: 'T-1', to: 'T-404', type: 'BLOCKS' })],
      ['a log entry without a timestamp', (state) => delete state.log[0].at],
      ['log revisions out of order', (state) => (state.log[0].revision = 99)],
      ['a revision of 2^53+1', (state) => (state.revision = 2 ** 53 + 1)],
      [
        'a BLOCKS cycle',
        (state) => {
          state.nodes['T-0'] = { ...state.nodes['T-1'], id: 'T-0' };
          state.edges.push({ from: 'T-1', to: 'T-0', type: 'BLOCKS' }, { from: 'T-0', to: 'T-1', type: 'BLOCKS' });
        },
      ],
      ['a node id ../x', (state) => (state.nodes['../x'] = { ...state.nodes['T-1'], id: '../x' })],
      ['an unknown node field', (state) => (state.nodes['T-1'].owner = 'eve')],
    ];
    for (const [problem, edit] of brokenStates) {
      it(`for a snapshot whose state has ${problem}, even with a matching sha256`, async () => {
        rewriteState(edit);
        await refused([snapshot.id, '--as', 'alice'], 'STORAGE_ERROR');
      });
    }
  });

  it('restore also recovers a live state that no longer loads', async () => {
    const snapshot = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
    writeFileSync(path.join(dir, 'tasks.json'), 'garbage');
    expect((await sandbox.run(['state'])).json.error.code).to.equal('STORAGE_ERROR');
    await sandbox.ok(['restore', snapshot.id, '--as', 'alice']);
    expect(JSON.parse(await state()).nodes).to.have.keys('T-1');
    const [preRestore] = (await sandbox.ok(['snapshots'])).snapshots;
    expect(readFileSync(snapshotFile(preRestore.id, '.state.json'), 'utf8')).to.equal('garbage');
  });

  it('init after tasks.json is deleted keeps the ledger as a corrupt-recovery snapshot, and nothing goes back', async () => {
    const before = JSON.parse(await state());
    rmSync(path.join(dir, 'tasks.json'));
    const refused = await sandbox.run(['show', 'T-1']);
    expect(refused.json.error.code).to.equal('STORAGE_ERROR');
    expect(refused.json.error.message).to.contain('is missing beside ledger.');
    const ledgers = readdirSync(dir).filter((name) => name.startsWith('ledger.'));
    const ledgerBytes = readFileSync(path.join(dir, ledgers[0]!));
    const result = await sandbox.ok(['init']);
    expect(result.snapshot.reason).to.equal('corrupt-recovery');
    expect(readFileSync(snapshotFile(result.snapshot.id, `.${ledgers[0]}`))).to.deep.equal(ledgerBytes);
    expect(result.snapshot.raw_files.map((file: { name: string }) => file.name)).to.deep.equal([`${result.snapshot.id}.${ledgers[0]}`]);
    const after = JSON.parse(await state());
    expect(after.fence_generation).to.be.greaterThan(before.fence_generation);
    expect(readdirSync(dir).filter((name) => name.startsWith('ledger.'))).to.not.include(ledgers[0]);
  });

  describe('a damaged state comes back by command when its ledger reaches back to its creation', () => {
    const corruptRecovery = async () => {
      const { snapshot } = await sandbox.ok(['init']);
      expect(snapshot.reason).to.equal('corrupt-recovery');
      expect((await sandbox.ok(['snapshots'])).snapshots[0]).to.deep.equal(snapshot);
      return snapshot;
    };
    const tasksReady = async () => (await sandbox.ok(['status'])).tasks.ready.map((task: { id: string }) => task.id);

    it('a lost checkpoint: init keeps the ledger as corrupt-recovery, restore of it brings every node back', async () => {
      await sandbox.ok(['add-task', 'T-2', ...TASK]);
      await sandbox.ok(['add-note', 'T-1', 'kept', 'through', 'the', 'loss', '--as', 'alice']);
      const before = JSON.parse(await state());
      rmSync(path.join(dir, 'tasks.json'));
      const damaged = await sandbox.run(['status']);
      expect([damaged.code, damaged.json.error.code]).to.deep.equal([1, 'STORAGE_ERROR']);
      expect(damaged.json.error.message).to.contain('restore of that snapshot');

      const snapshot = await corruptRecovery();
      expect(await tasksReady()).to.deep.equal([]);
      expect(await sandbox.ok(['restore', snapshot.id, '--as', 'bob'])).to.deep.equal({ snapshot });

      expect(await tasksReady()).to.deep.equal(['T-1', 'T-2']);
      const restored = JSON.parse(await state());
      expect(restored.nodes).to.deep.equal(before.nodes);
      expect(restored.nodes['T-1'].notes.map((note: { text: string }) => note.text)).to.deep.equal(['kept through the loss']);
      expect([restored.edges, restored.initiatives]).to.deep.equal([before.edges, before.initiatives]);
      expect(restored.log.slice(0, -1)).to.deep.equal(before.log);
      expect(restored.log.at(-1)).to.include({ op: 'restore', by: 'bob', snapshot: snapshot.id, restored_revision: before.revision });
      await sandbox.ok(['add-task', 'T-3', ...TASK]);
    });

    it('a ledger damaged in the middle: restore replays the records that verify, up to the damage', async () => {
      await sandbox.ok(['add-task', 'T-2', ...TASK]);
      await sandbox.ok(['add-task', 'T-3', ...TASK]);
      const ledger = path.join(dir, readdirSync(dir).find((name) => name.startsWith('ledger.'))!);
      const bytes = readFileSync(ledger);
      const at = bytes.indexOf('"title":"A task"', bytes.indexOf('"id":"T-2"'));
      bytes.write('"title":"X task"', at);
      writeFileSync(ledger, bytes);
      expect((await sandbox.run(['status'])).json.error.details).to.include({ cause: 'EINVALID' });

      const snapshot = await corruptRecovery();
      await sandbox.ok(['restore', snapshot.id, '--as', 'alice']);
      expect(await tasksReady()).to.deep.equal(['T-1']);
      expect(JSON.parse(await state()).log.at(-1)).to.include({ op: 'restore', restored_revision: 2 });
    });

    it('a restore straight over the damage keeps the raw files as pre-restore, and restoring that brings the damaged state back', async () => {
      const older = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      await sandbox.ok(['add-task', 'T-2', ...TASK]);
      rmSync(path.join(dir, 'tasks.json'));
      await sandbox.ok(['restore', older.id, '--as', 'alice']);
      expect(await tasksReady()).to.deep.equal(['T-1']);
      const [preRestore] = (await sandbox.ok(['snapshots'])).snapshots;
      expect(preRestore.reason).to.equal('pre-restore');
      await sandbox.ok(['restore', preRestore.id, '--as', 'alice']);
      expect(await tasksReady()).to.deep.equal(['T-2']);
    });

    it('a ledger that starts from a checkpoint\'s graph (after a restore) is refused, leaving every byte as it was', async () => {
      const reset = (await sandbox.ok(['init', '--force', '--as', 'alice'])).snapshot;
      await sandbox.ok(['restore', reset.id, '--as', 'alice']);
      rmSync(path.join(dir, 'tasks.json'));
      const snapshot = await corruptRecovery();
      const before = treeDigest(dir);
      const refused = await sandbox.run(['restore', snapshot.id, '--as', 'alice']);
      expect([refused.code, refused.json.error.code, refused.json.error.details.cause]).to.deep.equal([1, 'STORAGE_ERROR', 'EINVALID']);
      expect(refused.json.error.message).to.contain('recovery by hand');
      expect(treeDigest(dir)).to.deep.equal(before);
    });
  });
});
