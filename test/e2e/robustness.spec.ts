import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { projectDir } from '../support/durability.js';

/** Names that are special to JavaScript objects, racing inits, and a corrupt node on disk. */
describe('robustness (hostile names, racing init, a corrupt node line)', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
  });
  afterEach(() => sandbox.remove());

  it('command words named after Object.prototype members are unknown commands (exit 2)', async () => {
    for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const result = await sandbox.run([word]);
      expect(result.code, word).to.equal(2);
      expect(result.json.error.code, word).to.equal('UNKNOWN_COMMAND');
      expect(result.stderr, word).to.equal('');
    }
  });

  it('refuses an initiative named __proto__ and writes nothing', async () => {
    await sandbox.init();
    const before = (await sandbox.run(['state'])).stdout;
    const result = await sandbox.run(['add-initiative', '__proto__', '--as', 'alice']);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('INVALID_ARGUMENT');
    expect((await sandbox.run(['state'])).stdout).to.equal(before);
  });

  it('eight racing inits in one directory agree on one project, and one of them created it', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => sandbox.run(['init'])));
    const ids = new Set(results.map((result) => result.json.project_id));
    expect(results.map((result) => result.code)).to.deep.equal(Array(8).fill(0));
    expect(ids.size).to.equal(1);
    expect(results.filter((result) => result.json.created)).to.have.length(1);
    expect(JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8')).project_id).to.equal([...ids][0]);
    expect(readdirSync(path.join(sandbox.home, '.taskdag', 'projects'))).to.deep.equal([...ids]);
  });

  it('a corrupt node line in the checkpoint is refused when read, and init recovers with a snapshot', async () => {
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'b', '--as', 'a']);
    await sandbox.ok(['add-task', 'T-9', '--initiative', 'b', '--title', 't9', '--body', 'x', '--acceptance', 'y', '--blocked-by', '', '--as', 'a']);
    // Three large notes push the ledger past the checkpoint threshold, so T-9 lands in tasks.json.
    for (let i = 0; i < 3; i++) await sandbox.ok(['add-note', 'T-9', 'x'.repeat(100_000), '--as', 'a']);
    const checkpoint = path.join(projectDir(sandbox), 'tasks.json');
    const bytes = readFileSync(checkpoint);
    bytes[bytes.lastIndexOf('"title":"t9"')] = '#'.charCodeAt(0);
    writeFileSync(checkpoint, bytes);

    const show = await sandbox.run(['show', 'T-9']);
    expect(show.code).to.equal(1);
    expect(show.json.error.code).to.equal('STORAGE_ERROR');
    const init = await sandbox.ok(['init']);
    expect(init.created).to.equal(true);
    expect(init.snapshot.reason).to.equal('corrupt-recovery');
    expect((await sandbox.ok(['state'])).nodes).to.deep.equal({});
  });
});
