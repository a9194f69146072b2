import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ACTIONS } from '../../domain/permissions.js';
import { POINT_COMMANDS } from '../../entrypoints/cli/point-commands.js';
import { Sandbox } from '../support/cli.js';
import { distReadsProbe, type DistReads } from '../support/dist-reads.js';

const DIST = path.resolve(__dirname, '../../../dist');

/**
 * A point command in plain words (`update T-1 --title x`, `take T-1`, `context T-1`) is what an
 * agent runs between two reads: dist/taskdag.js loads the point commands' program for it
 * (entrypoints/cli/point-commands.ts), about half the whole program, and the whole program only
 * for a line that program hands on (BENCHMARKS.md, issue 28). The answers are the whole
 * program's: every end-to-end spec of these commands runs through it.
 */
describe("the point commands' program (start-up)", function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let distFilesReadBy: (args: string[]) => Promise<DistReads>;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    distFilesReadBy = distReadsProbe(sandbox);
    await sandbox.ok(['add-initiative', 'point', '--as', 'probe']);
  });
  after(() => sandbox.remove());

  /** The programs (the dist/ bundles besides the executable) a command line loads, and its exit status. */
  async function programsLoadedBy(args: string[]): Promise<{ code: number | null; programs: string[] }> {
    const { code, programs } = await distFilesReadBy(args);
    return { code, programs };
  }

  const addTask = (title: string) => ['add-task', '--initiative', 'point', '--title', title, '--body', 'B', '--acceptance', 'A', '--blocked-by', '', '--as', 'probe'];

  it("is all that a point command in plain words loads, from the command's own code cache, whatever its answer", async () => {
    const added = await distFilesReadBy(addTask('first'));
    expect([added.code, added.read]).to.deep.equal([0, ['taskdag-point.js', 'taskdag-point.js.add-task.cache']]);
    const task = added.json.node.id as string;
    for (const [args, code, cache] of [
      [['update', task, '--title', 'changed', '--as', 'probe'], 0, 'update'],
      [['add-note', task, 'a', 'note', '--as', 'probe'], 0, 'add-note'],
      [['context', task, '--as', 'probe'], 0, 'context'],
      [['take', task, '--as', 'probe'], 0, 'take'],
      // Every point command has a cache of its own (release, reject, reopen, cancel, resolve and
      // deprecate-knowledge started from one all of them had warmed).
      [['--as', 'probe', 'release', task], 0, 'release'],
      [['take', task, '--as', 'probe'], 0, 'take'],
      [['submit', task, '--note', 'done', '--as', 'probe'], 0, 'submit'],
      [['reject', task, '--reason', 'no', '--as', 'reviewer'], 0, 'reject'],
      [['take', task, '--as', 'probe'], 0, 'take'],
      [['submit', task, '--note', 'again', '--as', 'probe'], 0, 'submit'],
      [['accept', task, '--as', 'reviewer'], 0, 'accept'],
      [['reopen', task, '--reason', 'bug', '--as', 'probe'], 0, 'reopen'],
      [['take', task, '--as', 'probe'], 0, 'take'],
      [['cancel', task, '--reason', 'dropped', '--as', 'probe'], 0, 'cancel'],
      [['resolve', 'G-none', '--choice', 'c', '--rationale', 'r', '--as', 'probe'], 1, 'resolve'],
      [['deprecate-knowledge', 'K-none', '--reason', 'old', '--as', 'probe'], 1, 'deprecate-knowledge'],
      [['take', 'T-none', '--as', 'probe'], 1, 'take'],
      [['update', 'T-none', '--title', 'x', '--as', 'probe'], 1, 'update'],
    ] as const) {
      const read = ['taskdag-point.js', `taskdag-point.js.${cache}.cache`];
      expect(await distFilesReadBy([...args]).then(({ code, read }) => ({ code, read })), args.join(' ')).to.deep.equal({ code, read });
    }
  });

  it('hands every other line to the whole program', async () => {
    const task = (await sandbox.ok(addTask('second'))).node.id as string;
    for (const [args, code] of [
      [['update', task, '--help'], 0],
      [['update', task, '--bogus', 'x', '--as', 'probe'], 1],
      [['take', task, 'extra', '--as', 'probe'], 1],
      // A value that starts with a dash is clipanion's to read (here: a missing value).
      [['add-task', '--initiative', 'point', '--title', '-dash', '--body', 'B', '--acceptance', 'A', '--blocked-by', '', '--as', 'probe'], 1],
    ] as const) {
      expect(await programsLoadedBy([...args]), args.join(' ')).to.deep.equal({ code, programs: ['taskdag-point.js', 'taskdag-cli.js'] });
    }
    expect(await programsLoadedBy(['next', '--as', 'probe'])).to.deep.equal({ code: 0, programs: ['taskdag-cli.js'] });
  });

  it("locks the project through fs-ext's binding beside the program, without resolving and compiling its script", async () => {
    const modules = path.join(sandbox.root, 'modules.js');
    const out = path.join(sandbox.root, 'modules.json');
    writeFileSync(modules, "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(Object.keys(require.cache))));");
    const result = await sandbox.run(addTask('locked'), { env: { NODE_OPTIONS: `--require ${modules}`, PROBE_OUT: out } });
    expect(result.code).to.equal(0);
    // The project lock was taken and released: the next writer gets it.
    expect((await sandbox.run(['update', result.json.node.id, '--title', 'after', '--as', 'probe'])).code).to.equal(0);
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(loaded.filter((file) => file.includes(`${path.sep}fs-ext${path.sep}`))).to.deep.equal([]);
  });

  it('serves every action on a node, which previews of allowed_actions run', () => {
    const served = POINT_COMMANDS.map((operation) => operation.name);
    expect(ACTIONS.filter((action) => !served.includes(action))).to.deep.equal([]);
  });

  it('holds none of the command line it hands on: clipanion, the help, the other operations', () => {
    const { sources } = JSON.parse(readFileSync(path.join(DIST, 'taskdag-point.js.map'), 'utf8')) as { sources: string[] };
    const held = (file: string) => sources.some((source) => source.endsWith(file));
    expect(held('application/operations/update.ts')).to.equal(true);
    for (const file of ['clipanion/lib/advanced/Cli.js', 'entrypoints/cli/help.ts', 'application/operations/index.ts', 'application/operations/batch.ts', 'application/operations/show.ts']) {
      expect(held(file), file).to.equal(false);
    }
  });
});
