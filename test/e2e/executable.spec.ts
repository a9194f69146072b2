import { expect } from 'chai';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { allCommands } from '../../entrypoints/cli/commands.js';
import { FdWriter, onFirstUse } from '../../entrypoints/cli/fd-writer.js';
import { BINARY, Sandbox } from '../support/cli.js';

const ROOT = path.resolve(__dirname, '../../..');
const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('the taskdag executable (entrypoints/cli/bin.ts)', () => {
  let sut: Sandbox;

  beforeEach(() => {
    sut = new Sandbox();
  });

  afterEach(() => {
    sut.remove();
  });

  it('prints the package version for --version and -v', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await sut.run([flag]);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal(`${version}\n`);
    }
  });

  it('prints the program usage for --help and -h, naming every command', async () => {
    // `--no-warnings --help` is not answered from the build-time text: it runs the program itself.
    const fromProgram = await sut.run(['--no-warnings', '--help']);
    for (const flag of ['--help', '-h']) {
      const result = await sut.run([flag]);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal(fromProgram.stdout);
    }
    for (const command of allCommands()) expect(fromProgram.stdout).to.include(`taskdag ${command.paths![0]!.join(' ')}`);
  });

  it('answers --version loading no module Node does not load for an empty script', async () => {
    const probe = path.join(sut.root, 'modules.js');
    writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(process.moduleLoadList)));\n");
    const empty = path.join(sut.root, 'empty.js');
    writeFileSync(empty, '');
    const modulesOf = async (binary: string, args: string[]) => {
      const result = await sut.run(args, { binary, env: { NODE_OPTIONS: `--require ${probe}` } });
      expect(result.code).to.equal(0);
      return JSON.parse(result.stderr) as string[];
    };
    const node = new Set(await modulesOf(empty, []));
    // node:vm (the programs' code caches) was loaded as the executable was, for --version too.
    expect((await modulesOf(BINARY, ['--version'])).filter((module) => !node.has(module))).to.deep.equal([]);
  });

  it('answers STORAGE_ERROR as one JSON value when its working directory was removed, for a read, a point command and the whole program', () => {
    const gone = path.join(sut.root, 'gone');
    for (const command of ['status', 'update T-1 --title x --as a', 'add-initiative core --as a']) {
      // The shell stands in the directory, removes it, and starts the binary there.
      const result = spawnSync('sh', ['-c', `mkdir "$GONE" && cd "$GONE" && rmdir "$GONE" && exec "$NODE" "$BIN" ${command}`], {
        env: { ...sut.env(), GONE: gone, NODE: process.execPath, BIN: BINARY },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status, `${command}: ${result.stderr}`).to.equal(1);
      expect(result.stderr, command).to.equal('');
      expect(JSON.parse(result.stdout), command).to.deep.include({ ok: false });
      expect(JSON.parse(result.stdout).error, command).to.deep.include({ code: 'STORAGE_ERROR', details: { cause: 'ENOENT' } });
    }
  });

  it('ends a command its own program served once it has answered, leaving what is still queued, as Node ends the whole program', async () => {
    await sut.init();
    await sut.ok(['add-initiative', 'core', '--as', 'alice']);
    const task = (await sut.ok(['add-task', '--initiative', 'core', '--title', 'T', '--body', 'B', '--acceptance', 'A', '--blocked-by', '', '--as', 'alice'])).node.id as string;
    // Work still queued when the answer is written (as V8 queues a collection when the heap fills),
    // and the process's exit event, which every ending still runs.
    const probe = path.join(sut.root, 'queued.js');
    writeFileSync(probe, "const { writeSync } = require('node:fs');\nsetTimeout(() => writeSync(2, 'queued;'), 50);\nprocess.on('exit', (code) => writeSync(2, `exit ${code};`));\n");
    const run = (args: string[]) => sut.run(args, { env: { NODE_OPTIONS: `--require ${probe}` } }).then(({ code, stderr }) => ({ code, stderr }));
    // The graph reads' program and the point commands' program, answering and failing.
    expect(await run(['show', task])).to.deep.equal({ code: 0, stderr: 'exit 0;' });
    expect(await run(['show', 'T-none'])).to.deep.equal({ code: 1, stderr: 'exit 1;' });
    expect(await run(['status', '--limit', '1'])).to.deep.equal({ code: 0, stderr: 'exit 0;' });
    expect(await run(['take', task, '--as', 'alice'])).to.deep.equal({ code: 0, stderr: 'exit 0;' });
    expect(await run(['context', task, '--as', 'alice'])).to.deep.equal({ code: 0, stderr: 'exit 0;' });
    expect(await run(['take', 'T-none', '--as', 'alice'])).to.deep.equal({ code: 1, stderr: 'exit 1;' });
    // A line a program hands on to the whole program (which may go on serving), and a command only the whole program serves.
    expect(await run(['take', task, 'extra', '--as', 'alice'])).to.deep.equal({ code: 1, stderr: 'queued;exit 1;' });
    expect(await run(['add-initiative', 'other', '--as', 'alice'])).to.deep.equal({ code: 0, stderr: 'queued;exit 0;' });
  });

  it('writes a large result whole through a pipe', async () => {
    await sut.init();
    await sut.ok(['add-initiative', 'big', '--as', 'alice']);
    const body = 'x'.repeat(100_000);
    await sut.ok(['add-task', 'T-big', '--initiative', 'big', '--title', 'Big', '--body', body, '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
    const state = await sut.ok(['state']);
    expect(state.nodes['T-big'].body).to.equal(body);
  });

  describe('without a usable code cache', () => {
    // A copy under build/, so that the program still finds node_modules (fs-ext) above it.
    const copy = path.join(ROOT, 'build', 'executable-copy');
    const cache = path.join(copy, 'taskdag-cli.js.cache');

    beforeEach(() => {
      mkdirSync(copy, { recursive: true });
      for (const file of ['taskdag.js', 'taskdag-cli.js']) copyFileSync(path.join(path.dirname(BINARY), file), path.join(copy, file));
    });

    afterEach(() => {
      rmSync(copy, { recursive: true, force: true });
    });

    async function runsCommands(): Promise<void> {
      const binary = path.join(copy, 'taskdag.js');
      expect((await sut.run(['init'], { binary })).code).to.equal(0);
      const added = await sut.run(['add-initiative', 'core', '--as', 'alice'], { binary });
      expect(added.code).to.equal(0);
      expect(added.json.initiative.name).to.equal('core');
      const missing = await sut.run(['show', 'T-none'], { binary });
      expect(missing.code).to.equal(1);
      expect(missing.json.error.code).to.equal('NODE_NOT_FOUND');
    }

    it('runs commands when the cache is missing', async () => {
      await runsCommands();
    });

    it('runs commands when the cache is damaged', async () => {
      writeFileSync(cache, Buffer.alloc(4096, 7));
      await runsCommands();
    });

    it('answers every command whole, exit 0, when each code cache has one byte flipped in its middle (V8 crashed on it, exit 139)', async function () {
      this.timeout(120_000);
      const dist = path.dirname(BINARY);
      const caches = readdirSync(dist).filter((file) => file.endsWith('.cache'));
      for (const file of readdirSync(dist).filter((file) => file.startsWith('taskdag') && (file.endsWith('.js') || file.endsWith('.txt')))) copyFileSync(path.join(dist, file), path.join(copy, file));
      for (const file of caches) {
        const bytes = readFileSync(path.join(dist, file));
        bytes[bytes.length >> 1]! ^= 0xff;
        writeFileSync(path.join(copy, file), bytes);
      }
      const binary = path.join(copy, 'taskdag.js');
      await sut.init();
      await sut.ok(['add-initiative', 'core', '--as', 'alice']);
      const task = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice'];
      for (const id of ['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6']) await sut.ok(task(id));
      await sut.ok(['add-gate', 'G-1', '--initiative', 'core', '--title', 'G', '--body', 'b', '--purpose', 'p', '--as', 'alice']);
      await sut.ok(['add-knowledge', 'K-1', '--initiative', 'core', '--title', 'K', '--body', 'b', '--scope-domains', 'x', '--as', 'alice']);
      for (const id of ['T-2', 'T-3', 'T-4', 'T-5', 'T-6']) await sut.ok(['take', id, '--as', 'alice']);
      for (const id of ['T-3', 'T-4']) await sut.ok(['submit', id, '--note', 'n', '--as', 'alice']);
      // The command that starts from each cache, run by the damaged copy; a read's answer is also the intact binary's.
      const byCache: Record<string, { args: string[]; read?: true }> = {
        'taskdag-cli.js.cache': { args: ['add-initiative', 'more', '--as', 'alice'] },
        'taskdag-cli.js.reads.cache': { args: ['show', '--help'], read: true },
        'taskdag-reads.js.show.cache': { args: ['show', 'T-1'], read: true },
        'taskdag-reads.js.status.cache': { args: ['status'], read: true },
        'taskdag-reads.js.search.cache': { args: ['search', 'K'], read: true },
        'taskdag-reads.js.history.cache': { args: ['history', 'T-1'], read: true },
        'taskdag-reads.js.state.cache': { args: ['state'], read: true },
        'taskdag-reads.js.initiatives.cache': { args: ['initiatives'], read: true },
        'taskdag-point.js.context.cache': { args: ['context', 'T-1', '--as', 'alice'], read: true },
        'taskdag-point.js.update.cache': { args: ['update', 'T-1', '--title', 'u', '--as', 'alice'] },
        'taskdag-point.js.add-note.cache': { args: ['add-note', 'T-1', 'noted', '--as', 'alice'] },
        'taskdag-point.js.add-task.cache': { args: task('T-7') },
        'taskdag-point.js.take.cache': { args: ['take', 'T-1', '--as', 'alice'] },
        'taskdag-point.js.release.cache': { args: ['release', 'T-2', '--as', 'alice'] },
        'taskdag-point.js.submit.cache': { args: ['submit', 'T-5', '--note', 'n', '--as', 'alice'] },
        'taskdag-point.js.accept.cache': { args: ['accept', 'T-3', '--as', 'reviewer'] },
        'taskdag-point.js.reject.cache': { args: ['reject', 'T-4', '--reason', 'r', '--as', 'reviewer'] },
        'taskdag-point.js.reopen.cache': { args: ['reopen', 'T-3', '--reason', 'r', '--as', 'alice'] },
        'taskdag-point.js.cancel.cache': { args: ['cancel', 'T-6', '--reason', 'r', '--as', 'alice'] },
        'taskdag-point.js.resolve.cache': { args: ['resolve', 'G-1', '--choice', 'c', '--rationale', 'r', '--as', 'alice'] },
        'taskdag-point.js.deprecate-knowledge.cache': { args: ['deprecate-knowledge', 'K-1', '--reason', 'old', '--as', 'alice'] },
      };
      // Every cache the build writes is covered (a new one needs its command here).
      expect(caches.filter((file) => !(file in byCache) && file !== 'taskdag-point.js.cache')).to.deep.equal([]);
      for (const file of caches.filter((file) => file in byCache)) {
        const { args, read } = byCache[file]!;
        const damaged = await sut.run(args, { binary });
        expect({ code: damaged.code, stderr: damaged.stderr }, `${file}: ${args.join(' ')}`).to.deep.equal({ code: 0, stderr: '' });
        if (read) expect(damaged.stdout, file).to.equal((await sut.run(args)).stdout);
        else expect(JSON.parse(damaged.stdout), file).to.not.have.property('ok');
      }
    });

    it('answers within seconds, exit 0, when a code cache path never ends (a link to /dev/zero) or is a FIFO (the read went on for gigabytes)', async function () {
      this.timeout(60_000);
      const dist = path.dirname(BINARY);
      for (const file of readdirSync(dist).filter((file) => file.startsWith('taskdag') && (file.endsWith('.js') || file.endsWith('.txt')))) copyFileSync(path.join(dist, file), path.join(copy, file));
      for (const file of ['taskdag-reads.js.show.cache', 'taskdag-point.js.update.cache', 'taskdag-cli.js.cache']) symlinkSync('/dev/zero', path.join(copy, file));
      execFileSync('mkfifo', [path.join(copy, 'taskdag-point.js.context.cache')]);
      const binary = path.join(copy, 'taskdag.js');
      await sut.init();
      await sut.ok(['add-initiative', 'core', '--as', 'alice']);
      await sut.ok(['add-task', 'T-1', '--initiative', 'core', '--title', 'T', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
      for (const [args, read] of [
        [['show', 'T-1'], true],
        [['context', 'T-1', '--as', 'alice'], true],
        [['update', 'T-1', '--title', 'u', '--as', 'alice'], false],
        [['add-initiative', 'more', '--as', 'alice'], false],
      ] as const) {
        const started = Date.now();
        const result = await sut.run([...args], { binary, timeoutMs: 15_000 });
        expect({ code: result.code, stderr: result.stderr }, args.join(' ')).to.deep.equal({ code: 0, stderr: '' });
        expect(Date.now() - started, args.join(' ')).to.be.below(10_000);
        if (read) expect(result.stdout, args.join(' ')).to.equal((await sut.run([...args])).stdout);
        else expect(JSON.parse(result.stdout), args.join(' ')).to.not.have.property('ok');
      }
    });

    it('prints the help from the whole program when the help file is not beside it', async () => {
      const binary = path.join(copy, 'taskdag.js');
      const result = await sut.run(['--help'], { binary });
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal(readFileSync(path.join(path.dirname(BINARY), 'taskdag-help.txt'), 'utf8'));
    });
  });
});

describe('onFirstUse', () => {
  it('creates the real stream only when it is first used, then hands everything to it', () => {
    let created = 0;
    const real = new PassThrough({ encoding: 'utf8' });
    const sut = onFirstUse(() => {
      created += 1;
      return real;
    });
    expect(created).to.equal(0);
    sut.write('hello');
    expect(real.read()).to.equal('hello');
    expect(sut.readable).to.equal(true);
    expect(created).to.equal(1);
  });
});

describe('FdWriter: the answer indented on a terminal only', () => {
  const writerOn = (file: string, flags: string) => {
    const fd = openSync(file, flags);
    try {
      return new FdWriter(fd).isTTY;
    } finally {
      closeSync(fd);
    }
  };

  it('takes a pseudo-terminal for a terminal', () => {
    expect(writerOn('/dev/ptmx', 'r+')).to.equal(true);
  });

  it('takes /dev/null, /dev/zero and /dev/full, character devices too, for no terminal', () => {
    for (const device of ['/dev/null', '/dev/zero', '/dev/full']) expect(writerOn(device, 'w'), device).to.equal(false);
  });

  it('takes a file for no terminal', () => {
    const sandbox = new Sandbox();
    try {
      const file = path.join(sandbox.root, 'answer.json');
      writeFileSync(file, '');
      expect(writerOn(file, 'w')).to.equal(false);
    } finally {
      sandbox.remove();
    }
  });
});
