import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';

const GENERATOR = path.resolve(__dirname, '../../../bench/generate.mjs');
const POINT_PROGRAM = path.resolve(__dirname, '../../../dist/taskdag-point.js');
const GRAPH_READS_PROGRAM = path.resolve(__dirname, '../../../dist/taskdag-reads.js');

/**
 * What a point command pays beyond Node's own start-up and its answer (issue 28: within 1.5x of
 * `node -e 0` at 10k nodes). Each case is work a command did that its answer does not need.
 */
describe('what a point command costs beyond its answer', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'cost', '--as', 'probe']);
  });
  after(() => sandbox.remove());

  /** The functions V8 compiled with TurboFan while `args` ran (`--trace-opt` lines), the exit status, and the answer printed between those lines. */
  function optimizedBy(args: string[]): { status: number | null; optimized: string[]; answer: any } {
    const run = spawnSync(process.execPath, ['--trace-opt', BINARY, ...args], { cwd: sandbox.checkout, env: sandbox.env(), encoding: 'utf8', timeout: 20_000 });
    const lines = run.stdout.split('\n');
    const traced = (line: string) => line.startsWith('[') && (line.includes('TURBOFAN') || line.includes('optimiz'));
    return {
      status: run.status,
      optimized: lines.filter((line) => traced(line) && line.includes('TURBOFAN')),
      answer: JSON.parse(lines.filter((line) => !traced(line)).join('\n')),
    };
  }

  it('replays a ledger tail of 24 KB, as a busy project has between checkpoints, without compiling a hot loop on the way', async () => {
    // One record of 15 tasks with a body of 1 KB each: under the 32 KB that call for a checkpoint.
    const operations = Array.from({ length: 15 }, (_, at) => ({
      op: 'add-task',
      args: { id: `T-cost${at}`, initiative: 'cost', title: `task ${at}`, body: 'b'.repeat(1_000), acceptance: 'a', blocked_by: [] },
    }));
    const batch = path.join(sandbox.root, 'batch.json');
    writeFileSync(batch, JSON.stringify({ operations }));
    await sandbox.ok(['batch', '--file', batch, '--as', 'probe']);
    // Every record replayed is checked against its CRC-32: in JavaScript, a loop V8 optimizes on a background thread past some 10 KB.
    for (const args of [['show', 'T-cost3'], ['update', 'T-cost3', '--title', 'x', '--as', 'probe'], ['add-note', 'T-cost4', 'noted', '--as', 'probe']]) {
      const { status, optimized } = optimizedBy(args);
      expect({ status, optimized }, args.join(' ')).to.deep.equal({ status: 0, optimized: [] });
    }
  });

  it("finds an accepted task's dependents in the checkpoint's slot table without compiling a hot loop on the way", async () => {
    // A batch past the 32 KB that call for a checkpoint: the next load finds these nodes through the slot table.
    const dependents = Array.from({ length: 12 }, (_, at) => `T-after${at}`);
    const operations = [
      { op: 'add-task', args: { id: 'T-first', initiative: 'cost', title: 'first', body: 'b', acceptance: 'a', blocked_by: [] } },
      ...dependents.map((id) => ({ op: 'add-task', args: { id, initiative: 'cost', title: id, body: 'b'.repeat(3_000), acceptance: 'a', blocked_by: ['T-first'] } })),
    ];
    const batch = path.join(sandbox.root, 'dependents.json');
    writeFileSync(batch, JSON.stringify({ operations }));
    await sandbox.ok(['batch', '--file', batch, '--as', 'probe']);
    await sandbox.ok(['take', 'T-first', '--as', 'probe']);
    await sandbox.ok(['submit', 'T-first', '--note', 'done', '--as', 'probe']);
    // Each lookup parses some thirty hex fields of a bucket: digit by digit, a loop V8 optimized.
    const { status, optimized, answer } = optimizedBy(['accept', 'T-first', '--as', 'reviewer']);
    expect({ status, optimized }).to.deep.equal({ status: 0, optimized: [] });
    expect([...(answer.newly_ready as string[])].sort()).to.deep.equal([...dependents].sort());
  });

  /** A bench project of 2,000 nodes (bench/generate.mjs): its nodes in a checkpoint of about 3 MB. */
  let lived: Promise<any> | null = null;
  const livedProject = () => (lived ??= import(GENERATOR).then(({ writeProject }) => writeProject(path.join(sandbox.root, 'lived'), 'lived', { size: 2_000, logEntries: 2_000, poolSize: 3, actionPools: true })));
  const runIn = (fixture: any, args: string[], node: string[] = []) =>
    spawnSync(process.execPath, [...node, BINARY, ...args], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, encoding: 'utf8', timeout: 20_000 });

  /** Runs the executable in `fixture`'s checkout with a script `--require`d before it (`lines`, which write one JSON value to stderr at exit): the command must succeed; gives what the script wrote. */
  const probedIn = (fixture: any, name: string, lines: string[]) => {
    const probe = path.join(sandbox.root, name);
    writeFileSync(probe, lines.join('\n'));
    return (args: string[]): unknown => {
      const ran = runIn(fixture, args, ['--require', probe]);
      expect(ran.status, `${args.join(' ')}: ${ran.stdout}`).to.equal(0);
      return JSON.parse(ran.stderr);
    };
  };

  /** How many bytes of compiled code a command adds to its program's cache `word` (what V8 compiled from source as it ran). */
  const compiledBeyondCache = (fixture: any, program: string, word: string, args: string[]) => {
    const script = `
      const { loadWithCodeCache } = require(${JSON.stringify(path.resolve(__dirname, '../../entrypoints/cli/code-cache.js'))});
      const { exports, script } = loadWithCodeCache(${JSON.stringify(program)}, require, ${JSON.stringify(word)});
      exports.run(${JSON.stringify(args)}, async () => { throw new Error('handed on'); })
        .then(() => process.stderr.write(JSON.stringify({ rejected: script.cachedDataRejected, bytes: script.createCachedData().length })));`;
    const ran = spawnSync(process.execPath, ['-e', script], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, encoding: 'utf8', timeout: 20_000 });
    const { rejected, bytes } = JSON.parse(ran.stderr) as { rejected: boolean; bytes: number };
    expect({ status: ran.status, rejected, answered: JSON.parse(ran.stdout).error ?? null }, args.join(' ')).to.deep.equal({ status: 0, rejected: false, answered: null });
    return bytes - statSync(`${program}.${word}.cache`).size;
  };

  /** A new task of the sandbox's project, for a probe to run a command on. */
  const probeTask = async (title: string): Promise<string> =>
    (await sandbox.ok(['add-task', '--initiative', 'cost', '--title', title, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'probe'])).node.id as string;

  /**
   * Runs the executable in the sandbox's checkout with a script `--require`d before it (`lines`,
   * which write one JSON value to stderr at exit): the command must succeed; gives its answer and
   * what the script wrote.
   */
  const probedRun = (name: string, lines: string[]) => {
    const probe = path.join(sandbox.root, name);
    writeFileSync(probe, lines.join('\n'));
    return (args: string[]): { answer: any; probed: any } => {
      const ran = spawnSync(process.execPath, ['--require', probe, BINARY, ...args], { cwd: sandbox.checkout, env: sandbox.env(), encoding: 'utf8', timeout: 20_000 });
      expect(ran.status, `${args.join(' ')}: ${ran.stdout}`).to.equal(0);
      return { answer: JSON.parse(ran.stdout), probed: JSON.parse(ran.stderr) };
    };
  };

  it('replays a ledger tail of a hundred records, as the bench leaves between checkpoints, without compiling a hot loop on the way', async () => {
    const { writeProject } = await import(GENERATOR);
    const fixture = await writeProject(path.join(sandbox.root, 'hundred'), 'hundred', { size: 2_000, logEntries: 2_000, poolSize: 3 });
    // A hundred notes in one process (a command each would take seconds): about 38 KB of records, under the 67 KB that call for a checkpoint here.
    const notes = `const program = require(${JSON.stringify(path.resolve(__dirname, '../../../dist/taskdag-cli.js'))});
      (async () => { for (let at = 0; at < 100; at++) await program.run(['add-note', ${JSON.stringify(fixture.sample.task)}, 'note ' + at, '--as', 'probe']); })();`;
    expect(spawnSync(process.execPath, ['-e', notes], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, timeout: 30_000 }).status).to.equal(0);
    const position = JSON.parse(/"ledger":(\{"file":"[^"]+","bytes":\d+\})/.exec(readFileSync(path.join(fixture.stateDir, 'tasks.json'), 'latin1').slice(0, 65_536))![1]!) as { file: string; bytes: number };
    const tail = readFileSync(path.join(fixture.stateDir, position.file)).subarray(position.bytes);
    expect(tail.toString('latin1').split('\n').length - 1, 'records past the checkpoint').to.equal(100);
    // Each record's prefix was checked a byte at a time in JavaScript: a loop of 50 steps a record, which V8 optimized past some 60 records.
    for (const args of [['show', fixture.sample.task], ['add-note', fixture.sample.task, 'one more', '--as', 'probe']]) {
      const ran = runIn(fixture, args, ['--trace-opt']);
      const optimized = ran.stdout.split('\n').filter((line) => line.startsWith('[') && line.includes('TURBOFAN'));
      expect({ status: ran.status, optimized }, args.join(' ')).to.deep.equal({ status: 0, optimized: [] });
    }
  });

  it('makes no directory for a project that has its state (a mkdir and a stat each command before)', async () => {
    const directoriesMade = probedRun('directories.js', [
      "const fs = require('node:fs'); const mkdir = fs.mkdirSync; let made = 0; fs.mkdirSync = function (...args) { made++; return mkdir.apply(this, args); }; process.on('exit', () => fs.writeSync(2, JSON.stringify({ made })));",
    ]);
    const task = await probeTask('dir');
    for (const args of [['update', task, '--title', 'x', '--as', 'probe'], ['add-note', task, 'noted', '--as', 'probe']]) {
      expect(directoriesMade(args).probed, args.join(' ')).to.deep.equal({ made: 0 });
    }
  });

  it('checks the prefix of each ledger record it replays byte by byte, running no regular expression for it', async () => {
    const prefixMatches = probedRun('prefix-matches.js', [
      'const exec = RegExp.prototype.exec; let matched = 0;',
      "RegExp.prototype.exec = function (...args) { if (this.source.includes('crc32')) matched++; return exec.apply(this, args); };",
      "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify({ matched })));",
    ]);
    const task = await probeTask('prefix');
    for (const title of ['a', 'b', 'c']) await sandbox.ok(['update', task, '--title', title, '--as', 'probe']);
    // A string of each record's prefix, then a match of it: V8 compiled the expression in each command that read a tail.
    for (const args of [['status', '--limit', '20'], ['show', task], ['update', task, '--title', 'd', '--as', 'probe']]) {
      const { answer, probed } = prefixMatches(args);
      expect({ ok: answer.ok !== false, probed }, args.join(' ')).to.deep.equal({ ok: true, probed: { matched: 0 } });
    }
    expect((await sandbox.ok(['show', task])).node.title).to.equal('d');
  });

  it("reads the first lines of its checkpoint (about 3 KB), not the first 64 KB, to open it and to check it is still the one on disk", async () => {
    const fixture = await livedProject();
    const probed = probedIn(fixture, 'checkpoint-reads.js', [
      "const fs = require('node:fs'); const open = fs.openSync; const read = fs.readSync; const checkpoints = new Set(); let bytes = 0;",
      "fs.openSync = function (file, ...rest) { const fd = open.call(this, file, ...rest); if (String(file).endsWith('tasks.json')) checkpoints.add(fd); return fd; };",
      'fs.readSync = function (fd, ...rest) { const got = read.call(this, fd, ...rest); if (checkpoints.has(fd)) bytes += got; return got; };',
      "process.on('exit', () => fs.writeSync(2, JSON.stringify({ bytes })));",
    ]);
    const bytesRead = (args: string[]) => (probed(args) as { bytes: number }).bytes;
    // Its first lines twice (before the lock and under it), a bucket of the slot table, the node's line, its heads (64 KB twice before).
    expect(bytesRead(['update', fixture.sample.task, '--title', 'read', '--as', 'a'])).to.be.below(16 * 1024);
    expect(bytesRead(['show', fixture.sample.task])).to.be.below(8 * 1024);
  });

  it("seeds the checks of its slot-table and knowledge-scope buckets without Node's Buffer writers, JavaScript V8 compiled on their first call", async () => {
    const fixture = await livedProject();
    const writesBy = probedIn(fixture, 'buffer-writers.js', [
      'let writes = 0; const write = Buffer.prototype.writeUInt32BE;',
      'Buffer.prototype.writeUInt32BE = function (...args) { writes++; return write.apply(this, args); };',
      "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify({ writes })));",
    ]);
    // A `show` wrote its slot bucket's seed with writeUInt32BE, a `context` also each knowledge-scope bucket's.
    for (const args of [['show', fixture.sample.task], ['context', fixture.sample.context]]) expect(writesBy(args), args.join(' ')).to.deep.equal({ writes: 0 });
  });

  it("runs on a project that has lived a while (nodes in a checkpoint, a ledger tail) from its own code cache, compiling nothing it lacks", async () => {
    const { WORKER, REVIEWER } = await import(GENERATOR);
    const fixture = await livedProject();
    const run = (args: string[]) => runIn(fixture, args);
    // A tail of every kind of change, on tasks of their own.
    for (const args of [
      ['update', fixture.sample.task, '--title', 'p', '--as', WORKER],
      ['take', fixture.pools.take[2], '--as', WORKER],
      ['submit', fixture.pools.submit[2], '--note', 'n', '--as', WORKER],
      ['accept', fixture.pools.accept[2], '--as', REVIEWER],
    ]) expect(run(args).status, args.join(' ')).to.equal(0);
    for (const [word, ...args] of [
      ['submit', fixture.pools.submit[0], '--note', 'n', '--as', WORKER],
      ['accept', fixture.pools.accept[0], '--as', REVIEWER],
      ['update', fixture.sample.task, '--title', 'q', '--as', WORKER],
      // These started from a cache every point command had warmed, missing up to 8 KB of their own code.
      ['release', fixture.pools.release[0], '--as', WORKER],
      ['reject', fixture.pools.reject[0], '--reason', 'r', '--as', REVIEWER],
      ['reopen', fixture.pools.reopen[0], '--reason', 'r', '--as', WORKER],
      ['cancel', fixture.pools.cancel[0], '--reason', 'r', '--as', WORKER],
      ['resolve', fixture.pools.resolve[0], '--choice', 'c', '--rationale', 'r', '--as', WORKER],
      ['deprecate-knowledge', fixture.pools['deprecate-knowledge'][0], '--reason', 'r', '--as', WORKER],
    ] as string[][]) {
      // A few hundred bytes of slack; a cache warmed on a project whose nodes were all in the ledger missed some 15 KB here.
      expect(compiledBeyondCache(fixture, POINT_PROGRAM, word!, [word!, ...args]), word).to.be.below(1_024);
    }
  });

  it('runs the graph reads on a project that has lived a while from their own code caches, compiling nothing they lack', async () => {
    const fixture = await livedProject();
    // A node only the checkpoint holds and one the ledger tail changed; the status buckets; a search by word and by id; a history.
    const untouched = fixture.pools.take[1];
    expect(runIn(fixture, ['update', fixture.sample.task, '--title', 'r', '--as', 'a']).status).to.equal(0);
    for (const args of [
      ['show', untouched],
      ['show', fixture.sample.task],
      ['status'],
      ['status', '--limit', '20'],
      ['search', fixture.sample.query],
      ['search', fixture.sample.knowledge],
      ['history', untouched],
      ['history', fixture.sample.task],
    ]) {
      // A cache warmed on a project whose nodes were all in the ledger missed 9 KB here for `show`, 6-25 KB for `status`, 16 KB for `history`.
      expect(compiledBeyondCache(fixture, GRAPH_READS_PROGRAM, args[0]!, args), args.join(' ')).to.be.below(1_024);
    }
  });

  it("declares the arguments of its own operation only, not those of every operation its program serves", async () => {
    // Each argument's kind defines its validator as a getter (application/args.ts `kind`).
    const declared = probedRun('declared.js', [
      "const define = Object.defineProperty; let kinds = 0;",
      "Object.defineProperty = function (object, key, descriptor) { if (key === 'validator' && typeof descriptor?.get === 'function') kinds++; return define.call(this, object, key, descriptor); };",
      "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify({ kinds })));",
    ]);
    const task = await probeTask('declared');
    const kindsDeclaredBy = (args: string[]) => (declared(args).probed as { kinds: number }).kinds;
    // show: `id`; context: `id`, `stale_ms`; take: `id`, `lease` (about 20 and 80 before: every operation of the graph reads' and the point commands' programs).
    expect(kindsDeclaredBy(['show', task])).to.equal(1);
    expect(kindsDeclaredBy(['context', task])).to.equal(2);
    expect(kindsDeclaredBy(['take', task, '--as', 'probe'])).to.equal(2);
  });

  it('reads no plugin table for a context without an agent, which offers no action to ask the plugins about', async () => {
    const pluginReads = probedRun('plugin-reads.js', [
      "const fs = require('node:fs'); const asked = [];",
      "for (const name of ['openSync', 'readFileSync', 'existsSync', 'statSync']) { const call = fs[name]; fs[name] = function (file, ...rest) { if (/plugins\\.\\d+\\.json$/.test(String(file))) asked.push(name); return call.call(this, file, ...rest); }; }",
      "process.on('exit', () => fs.writeSync(2, JSON.stringify({ asked })));",
    ]);
    const task = await probeTask('plugins');
    const pluginTableReads = (args: string[]) => {
      const { answer, probed } = pluginReads(args);
      expect(answer.allowed_actions.length > 0, args.join(' ')).to.equal(args.includes('--as'));
      return (probed as { asked: string[] }).asked.length;
    };
    // One failed open of the table (ENOENT, an exception) before: the actions it filters were none.
    expect(pluginTableReads(['context', task])).to.equal(0);
    // With an agent, the plugins are asked about each action it may take: the table is read.
    expect(pluginTableReads(['context', task, '--as', 'probe'])).to.be.above(0);
  });

  it('opens no plugin table that is not there for a mutation on a project without plugins (an ENOENT thrown and caught each mutation before)', async () => {
    const failedOpens = probedRun('plugin-opens.js', [
      "const fs = require('node:fs'); const failed = [];",
      "for (const name of ['openSync', 'readFileSync']) { const call = fs[name]; fs[name] = function (file, ...rest) { try { return call.call(this, file, ...rest); } catch (error) { if (/plugins\\.\\d+\\.json$/.test(String(file))) failed.push(`${name} ${error.code}`); throw error; } }; }",
      "process.on('exit', () => fs.writeSync(2, JSON.stringify({ failed })));",
    ]);
    const task = await probeTask('no-plugins');
    for (const args of [['update', task, '--title', 'x', '--as', 'probe'], ['take', task, '--as', 'probe'], ['context', task, '--as', 'probe']]) {
      expect(failedOpens(args).probed, args.join(' ')).to.deep.equal({ failed: [] });
    }
  });

  it('makes its CRC-32 module from the bytes the build assembled, not by assembling them again', () => {
    const { crc32Module } = require('../../adapters/crc32-wasm.js') as typeof import('../../adapters/crc32-wasm.js');
    // The module as a literal of its bytes, as the build defines it (some 95 KB of small arrays a command assembled before).
    const bytes = JSON.stringify([...crc32Module()]);
    for (const program of [GRAPH_READS_PROGRAM, POINT_PROGRAM, path.resolve(__dirname, '../../../dist/taskdag-cli.js')]) {
      expect(readFileSync(program, 'latin1').includes(bytes), path.basename(program)).to.equal(true);
    }
  });

  it("loads the argument validators' library without copying its exports, one getter each, onto a new object", () => {
    const probe = path.join(sandbox.root, 'getters.js');
    writeFileSync(
      probe,
      [
        'const define = Object.defineProperty; const names = [];',
        "Object.defineProperty = function (object, key, descriptor) { if (typeof descriptor?.get === 'function') names.push(String(key)); return define.call(this, object, key, descriptor); };",
        "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(names)));",
      ].join('\n'),
    );
    for (const program of [GRAPH_READS_PROGRAM, POINT_PROGRAM]) {
      const script = `require(${JSON.stringify(path.resolve(__dirname, '../../entrypoints/cli/code-cache.js'))}).loadWithCodeCache(${JSON.stringify(program)}, require, 'all')`;
      const ran = spawnSync(process.execPath, ['--require', probe, '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(ran.status, ran.stderr).to.equal(0);
      // esbuild's interop for a CommonJS library (__toESM) defined a getter for each of typanion's exports (`cascade`, `isString`, ...).
      expect((JSON.parse(ran.stderr) as string[]).filter((name) => ['cascade', 'isString', 'makeValidator'].includes(name)), path.basename(program)).to.deep.equal([]);
    }
  });
});
