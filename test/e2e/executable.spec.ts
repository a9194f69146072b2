import { expect } from 'chai';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { allCommands } from '../../entrypoints/cli/commands.js';
import { onFirstUse } from '../../entrypoints/cli/fd-writer.js';
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
