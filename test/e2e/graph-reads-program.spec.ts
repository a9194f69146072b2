import { expect } from 'chai';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { distReadsProbe, type DistReads } from '../support/dist-reads.js';

const DIST = path.resolve(__dirname, '../../../dist');
// A copy under build/, so that the programs still find node_modules (fs-ext) above them.
const COPY = path.resolve(__dirname, '../../graph-reads-copy');

/**
 * A graph read in plain words (`show T-1`) is what agents run most: dist/taskdag.js loads the
 * graph reads' program for it (entrypoints/cli/graph-reads.ts), a bundle of about half the whole
 * program's size, and the whole program only for a line that program hands on (BENCHMARKS.md,
 * issue 28 item 2). The answers are the whole program's: every end-to-end spec runs through it.
 */
describe("the graph reads' program (start-up)", function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let distFilesReadBy: (args: string[]) => Promise<DistReads>;
  let task: string;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    distFilesReadBy = distReadsProbe(sandbox);
    await sandbox.ok(['add-initiative', 'reads', '--as', 'probe']);
    const added = await sandbox.ok(['add-task', '--initiative', 'reads', '--title', 'T', '--body', 'B', '--acceptance', 'A', '--blocked-by', '', '--as', 'probe']);
    task = added.node.id as string;
  });
  after(() => sandbox.remove());

  /** The programs (the dist/ bundles the executable, dist/taskdag.js, loads) a command line loads, and its exit status. */
  async function programsLoadedBy(args: string[]): Promise<{ code: number | null; programs: string[] }> {
    const { code, programs } = await distFilesReadBy(args);
    return { code, programs };
  }

  it('is all that a graph read in plain words loads, whatever its answer', async () => {
    for (const args of [
      ['show', task],
      ['show', 'T-none'],
      ['--no-warnings', 'show', task],
      ['status', '--limit', '2'],
      ['state'],
      ['search', 'T'],
      ['history', task],
      ['initiatives'],
    ]) {
      expect(await programsLoadedBy(args), args.join(' ')).to.deep.equal({ code: args.includes('T-none') ? 1 : 0, programs: ['taskdag-reads.js'] });
    }
  });

  it('starts each command from the code cache warmed by that command alone', async () => {
    for (const command of ['show', 'status', 'search', 'history', 'state', 'initiatives']) {
      const args = command === 'show' || command === 'history' ? [command, task] : command === 'search' ? [command, 'T'] : [command];
      const { read } = await distFilesReadBy(args);
      expect(read.filter((file) => file.endsWith('.cache')), command).to.deep.equal([`taskdag-reads.js.${command}.cache`]);
    }
  });

  it('hands every other line to the whole program', async () => {
    for (const [args, code] of [
      [['show', task, '--help'], 0],
      [['show', task, '--bogus'], 1],
      [['show', task, 'extra'], 1],
      [['next', '--as', 'probe'], 0],
      [['add-initiative', 'other', '--as', 'probe'], 0],
    ] as const) {
      expect(await programsLoadedBy([...args]), args.join(' ')).to.deep.equal({ code, programs: ['taskdag-reads.js', 'taskdag-cli.js'].slice(args[0] === 'show' ? 0 : 1) });
    }
  });

  it('holds none of the command line it hands on: clipanion, the help, the other operations', () => {
    const { sources } = JSON.parse(readFileSync(path.join(DIST, 'taskdag-reads.js.map'), 'utf8')) as { sources: string[] };
    const held = (file: string) => sources.some((source) => source.endsWith(file));
    expect(held('application/operations/show.ts')).to.equal(true);
    for (const file of ['clipanion/lib/advanced/Cli.js', 'entrypoints/cli/help.ts', 'application/operations/index.ts', 'application/operations/take.ts', 'application/operations/context.ts']) {
      expect(held(file), file).to.equal(false);
    }
  });

  it('answers without a usable code cache, missing or damaged', async () => {
    mkdirSync(COPY, { recursive: true });
    try {
      for (const file of ['taskdag.js', 'taskdag-reads.js', 'taskdag-cli.js']) copyFileSync(path.join(DIST, file), path.join(COPY, file));
      const binary = path.join(COPY, 'taskdag.js');
      const expected = await sandbox.ok(['show', task]);
      for (const damaged of [false, true]) {
        if (damaged) writeFileSync(path.join(COPY, 'taskdag-reads.js.show.cache'), Buffer.alloc(4096, 7));
        expect(await sandbox.ok(['show', task], { binary }), `damaged: ${damaged}`).to.deep.equal(expected);
        const missing = await sandbox.run(['show', 'T-none'], { binary });
        expect([missing.code, missing.json.error.code], `damaged: ${damaged}`).to.deep.equal([1, 'NODE_NOT_FOUND']);
      }
    } finally {
      rmSync(COPY, { recursive: true, force: true });
    }
  });
});
