import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox, type CliResult } from '../support/cli.js';
import { projectDir, treeDigest } from '../support/durability.js';

const TASK = ['--initiative', 'core', '--body', 'b', '--acceptance', 'ok', '--as', 'alice'];

/**
 * A node's line in the checkpoint edited in place to the same length (a bit flip, a hand edit):
 * the heads saved beside it were derived from the line as written, so `status`, which answers
 * from the heads, and `take` or `context`, which judge the line, gave different verdicts (issue 24
 * item 2). Now every line a command reads is checked against the checksum saved with it: `status`
 * still answers the state as written (it reads no line for what it lists), and `take`, `context`
 * and `show` answer STORAGE_ERROR naming the edited line, never another verdict, and write nothing.
 */
describe('a node line of the checkpoint edited in place, its length kept (issue 24)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let checkpoint: string;
  let pristine: Buffer;
  /** What status answered before any edit: the state as written. */
  let written: unknown;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    // T-1 ready; T-3 done, so T-4 (blocked by it) ready; T-5 claimed by alice.
    await sandbox.ok(['add-task', 'T-1', '--title', 'ready', '--blocked-by', '', ...TASK]);
    await sandbox.ok(['add-task', 'T-3', '--title', 'done', '--blocked-by', '', ...TASK]);
    await sandbox.ok(['take', 'T-3', '--as', 'alice']);
    await sandbox.ok(['submit', 'T-3', '--note', 'did it', '--as', 'alice']);
    await sandbox.ok(['accept', 'T-3', '--as', 'bob']);
    await sandbox.ok(['add-task', 'T-4', '--title', 'unblocked', '--blocked-by', 'T-3', ...TASK]);
    await sandbox.ok(['add-task', 'T-5', '--title', 'claimed', '--blocked-by', '', ...TASK]);
    await sandbox.ok(['take', 'T-5', '--as', 'alice']);
    await sandbox.ok(['add-knowledge', 'K-1', '--initiative', 'core', '--title', 'a guide for caching', '--body', 'b', '--scope-tags', 'x', '--as', 'alice']);
    // Every node into the checkpoint itself: the state replaced whole by a restore of itself.
    const { snapshot } = await sandbox.ok(['init', '--force', '--as', 'alice']);
    await sandbox.ok(['restore', snapshot.id, '--as', 'alice']);
    checkpoint = path.join(projectDir(sandbox), 'tasks.json');
    pristine = readFileSync(checkpoint);
    expect(pristine.toString('utf8')).to.match(/\n"T-5":\{/);
    written = await sandbox.ok(['status']);
  });
  after(() => sandbox.remove());
  afterEach(() => writeFileSync(checkpoint, pristine));

  /** Replaces `pattern` once in node `id`'s line, checking the file keeps its length. */
  function editLine(id: string, pattern: RegExp, replace: (match: string, ...groups: string[]) => string): void {
    const text = pristine.toString('utf8');
    const start = text.indexOf(`\n"${id}":{`) + 1;
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    const edited = line.replace(pattern, replace as (match: string) => string);
    expect(edited, `the edit of ${id}`).to.not.equal(line);
    const bytes = Buffer.from(text.slice(0, start) + edited + text.slice(end));
    expect(bytes.length).to.equal(pristine.length);
    writeFileSync(checkpoint, bytes);
  }

  function expectDamageNamed(result: CliResult, id: string, command: string): void {
    expect(result.code, `${command}: ${result.stdout}${result.stderr}`).to.equal(1);
    expect(result.json.error.code, command).to.equal('STORAGE_ERROR');
    expect(result.json.error.details.cause, command).to.equal('EINVALID');
    expect(result.json.error.message, command).to.contain(`node ${id}`);
  }

  it('untouched, status and take agree (the setup the edits below start from)', async () => {
    const status = await sandbox.ok(['status']);
    expect(status.tasks.ready.map((task: { id: string }) => task.id)).to.deep.equal(['T-1', 'T-4']);
    expect(status.tasks.in_progress.map((task: { id: string }) => task.id)).to.deep.equal(['T-5']);
    expect(status.alerts).to.deep.equal([]);
    expect((await sandbox.ok(['context', 'T-4'])).derived_status).to.equal('ready');
    expect((await sandbox.ok(['context', 'T-5'])).alerts).to.deep.equal([]);
  });

  it("a task's status letters (open to done): take and show answer STORAGE_ERROR naming it, where status lists it ready; nothing is written", async () => {
    editLine('T-1', /"status":"open"/, () => '"status":"done"');
    const damaged = treeDigest(projectDir(sandbox));
    expect(await sandbox.ok(['status'])).to.deep.equal(written);
    // Before: take answered NOT_READY (T-1 is done) while status listed T-1 as ready.
    expectDamageNamed(await sandbox.run(['take', 'T-1', '--as', 'bob']), 'T-1', 'take');
    expectDamageNamed(await sandbox.run(['show', 'T-1']), 'T-1', 'show');
    expect(treeDigest(projectDir(sandbox))).to.deep.equal(damaged);
  });

  it("a blocker's status (done to open): context and take of the task it blocks answer STORAGE_ERROR naming the blocker, where status lists the task ready", async () => {
    editLine('T-3', /"status":"done"/, () => '"status":"open"');
    const damaged = treeDigest(projectDir(sandbox));
    expect(await sandbox.ok(['status'])).to.deep.equal(written);
    // Before: take answered NOT_READY (blocked by T-3, open) while status listed T-4 as ready.
    expectDamageNamed(await sandbox.run(['context', 'T-4']), 'T-3', 'context');
    expectDamageNamed(await sandbox.run(['take', 'T-4', '--as', 'bob']), 'T-3', 'take');
    expect(treeDigest(projectDir(sandbox))).to.deep.equal(damaged);
  });

  it('a knowledge line edited where it held the query: search answers STORAGE_ERROR naming it, never a search without it', async () => {
    expect((await sandbox.ok(['search', 'caching'])).matches.map((match: { id: string }) => match.id)).to.deep.equal(['K-1']);
    editLine('K-1', /caching/, () => 'cachinX');
    // Before: no match and exit 0 (the line, as it reads now, does not hold the query, and was passed over unchecked).
    expectDamageNamed(await sandbox.run(['search', 'caching']), 'K-1', 'search');
    expect(await sandbox.ok(['status'])).to.deep.equal(written);
  });

  it("a claim's time (ten years earlier): context answers STORAGE_ERROR naming the task, where status raises no stale claim", async () => {
    editLine('T-5', /("claim":\{"by":"alice","at":")(\d{4})/, (_, before: string, year: string) => `${before}${Number(year) - 10}`);
    expect(await sandbox.ok(['status'])).to.deep.equal(written);
    // Before: context raised STALE_CLAIM (the line's claim) while status raised none (the heads').
    expectDamageNamed(await sandbox.run(['context', 'T-5']), 'T-5', 'context');
    expectDamageNamed(await sandbox.run(['take', 'T-5', '--as', 'alice']), 'T-5', 'take');
  });
});
