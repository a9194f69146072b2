import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandbox, runCli } from '../support/cli.js';
import { readCheckpointJson, writeCheckpointJson } from '../support/checkpoint-json.js';
import { projectDir, treeDigest } from '../support/durability.js';

const TASK = ['--initiative', 'core', '--title', 'A task', '--body', 'b', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice'];

/**
 * Damaged state files: every command that reads the state answers with a structured STORAGE_ERROR
 * (never a crash, never CLI_INTERNAL_ERROR), and no command writes a byte over them.
 */
describe('damaged state files (spec 9: the reader accepts only a valid schema 1)', () => {
  let sandbox: Sandbox;
  let dir: string;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    dir = projectDir(sandbox);
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    await sandbox.ok(['add-task', 'T-1', ...TASK]);
  });
  after(() => sandbox.remove());

  const checkpoint = () => path.join(dir, 'tasks.json');
  const ledger = () => path.join(dir, readCheckpointJson(checkpoint()).ledger.file);
  const edit = (change: (state: any) => void) => {
    const value = readCheckpointJson(checkpoint());
    change(value);
    writeCheckpointJson(checkpoint(), value);
  };

  /** Overwrites the `index`th record of a ledger with zeros, keeping its newline (a lost write in the middle). */
  const zeroRecord = (file: string, index: number) => {
    const bytes = readFileSync(file);
    let start = 0;
    for (let i = 0; i < index; i++) start = bytes.indexOf(10, start) + 1;
    bytes.fill(0, start, bytes.indexOf(10, start));
    writeFileSync(file, bytes);
  };

  /** Flips a bit of the last ledger record's change set: a commit already reported, not a torn write. */
  const flipInLastRecord = (file: string) => {
    const bytes = readFileSync(file);
    bytes[bytes.lastIndexOf('"title":"A task"') + 10] ^= 0x01;
    writeFileSync(file, bytes);
  };

  const damages: [string, () => void][] = [
    ['a truncated checkpoint', () => truncateSync(checkpoint(), Math.floor(readFileSync(checkpoint()).length / 2))],
    ['an empty checkpoint', () => writeFileSync(checkpoint(), '')],
    ['a checkpoint of garbage bytes', () => writeFileSync(checkpoint(), Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x13, 0x37]))],
    ['a checkpoint of another schema version', () => edit((state) => (state.version = 2))],
    ['a checkpoint missing a collection', () => edit((state) => delete state.edges)],
    ['a checkpoint with a malformed ledger reference', () => edit((state) => (state.ledger = { file: '../x', bytes: 0 }))],
    ['a missing ledger', () => rmSync(ledger())],
    ['a ledger shorter than the checkpoint says', () => edit((state) => (state.ledger.bytes = 1e9))],
    ['a damaged ledger record followed by valid ones', () => zeroRecord(ledger(), 1)],
    ['a bit flipped in the last ledger record (its commit reported)', () => flipInLastRecord(ledger())],
  ];

  for (const [damage, apply] of damages) {
    it(`${damage}: STORAGE_ERROR from reads and writes, and no byte written`, async () => {
      const pristine = treeDigest(dir);
      const saved = new Map(Object.keys(pristine).map((file) => [file, readFileSync(path.join(dir, file))]));
      apply();
      const damaged = treeDigest(dir);
      try {
        for (const args of [['state'], ['show', 'T-1'], ['add-task', 'T-2', ...TASK], ['add-initiative', 'more', '--as', 'alice']]) {
          const result = await sandbox.run(args);
          expect(result.code, `${args[0]}: ${result.stdout}${result.stderr}`).to.equal(1);
          expect(result.json.error.code, args[0]).to.equal('STORAGE_ERROR');
          expect(result.json.error.details.cause, args[0]).to.be.a('string');
        }
        const batch = await sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: '{"operations": []}' });
        expect(batch.json.error.code).to.equal('STORAGE_ERROR');
        expect(treeDigest(dir)).to.deep.equal(damaged);
      } finally {
        for (const file of Object.keys(damaged)) if (!saved.has(file)) rmSync(path.join(dir, file));
        for (const [file, bytes] of saved) writeFileSync(path.join(dir, file), bytes);
      }
      expect(treeDigest(dir)).to.deep.equal(pristine);
    });
  }

  it('a torn last ledger line (a crash mid-append) is ignored, then cut by the next writer', async () => {
    const before = (await sandbox.run(['state'])).stdout;
    appendFileSync(ledger(), '{"revision": 3, "log": [');
    expect((await sandbox.run(['state'])).stdout).to.equal(before);
    await sandbox.ok(['add-task', 'T-2', ...TASK]);
    const after = (await sandbox.run(['state'])).json;
    expect(after.revision).to.equal(JSON.parse(before).revision + 1);
    expect(after.nodes).to.have.keys('T-1', 'T-2');
  });
});

/** The bench's generator (plain JavaScript beside the sources): a project whose checkpoint holds every node. */
const GENERATOR = path.resolve(__dirname, '../../../bench/generate.mjs');

describe('a checkpoint whose id list is damaged (issue 28: point commands find nodes by the slot table)', function () {
  this.timeout(60_000);
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('status, show, update, add-note, add-task, submit, accept, take and context answer without reading the list; a filtered status and state report STORAGE_ERROR', async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'taskdag-id-list-'));
    const { writeProject } = await import(GENERATOR);
    const fixture = await writeProject(root, 'ids', { size: 2_000, logEntries: 2_000, poolSize: 2 });
    const file = path.join(fixture.stateDir, 'tasks.json');
    const cli = (args: string[]) => runCli(args, { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env } });
    const statusBefore = await cli(['status']);
    const bytes = readFileSync(file);
    // The first id's opening quote made a brace, in place: the list is no longer JSON, and every other byte is where it was.
    bytes.write('{', bytes.indexOf('\n"ids":[') + '\n"ids":['.length, 'latin1');
    writeFileSync(file, bytes);
    // status answers from counts, saved listings and saved blockers, never from the id list: the same answer as before the damage.
    const statusAfter = await cli(['status']);
    expect(statusAfter.code, statusAfter.stdout).to.equal(0);
    expect(withoutClaimAges(statusAfter.json)).to.deep.equal(withoutClaimAges(statusBefore.json));
    const task = fixture.sample.task;
    for (const args of [
      ['show', task],
      ['update', task, '--title', 'Renamed', '--as', 'a'],
      ['add-note', fixture.pools.take[1], 'Seen', '--as', 'a'],
      ['add-task', '--initiative', fixture.initiative, '--title', 'x', '--body', 'y', '--acceptance', 'z', '--blocked-by', '', '--as', 'a'],
      ['submit', fixture.pools.submit[0], '--note', 'done', '--as', 'a'],
      ['accept', fixture.pools.accept[0], '--as', 'b'],
      ['take', fixture.pools.take[0], '--as', 'a'],
      ['context', task],
    ]) {
      const result = await cli(args);
      expect(result.code, `${args[0]}: ${result.stdout}${result.stderr}`).to.equal(0);
    }
    expect((await cli(['show', task])).json.node.title).to.equal('Renamed');
    // A filtered status and state index every id: they name the damage.
    for (const args of [['status', '--initiative', fixture.initiative], ['state']]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.json.error.code, args.join(' ')).to.equal('STORAGE_ERROR');
      expect(result.json.error.message, args.join(' ')).to.include('its id list is not JSON');
    }
  });
});

/** A status answer without the claims' ages, which grow between two runs. */
function withoutClaimAges(status: { alerts: Array<Record<string, unknown>> }): unknown {
  return { ...status, alerts: status.alerts.map(({ age_ms: _age, message: _message, ...alert }) => alert) };
}
