// What a ledger tail costs a point command, in instructions (BENCHMARKS.md, issue 28: the replay
// of the tail past the checkpoint). Each build writes the bench's 10k-node project with its own
// store; a copy of it gets a tail of bench mutations (`--rounds` rounds of take, submit, accept,
// add-task, update and add-note, six records a round: 17 rounds, 102 records, as the bench's
// point-pairs leaves about 100). Then each command runs under callgrind on a fresh copy of each
// project, with the bench's minimal environment, and prints its whole-process instruction count
// less `v8::internal::Snapshot::Initialize` (whose random hash-seed search swings by millions),
// median of `--runs`, with `node -e 0` counted the same way.
// Usage (after npm run build here and there):
//   node bench/replay-tail.mjs [<other checkout>...] [--runs 3] [--rounds 17] [--commands take,context,show,history] [--keep <dir>]
// (`--keep`: the projects are written to <dir> and kept, and read from there when it holds them.)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './measure.mjs';
import { REVIEWER, WORKER, storeOf, writeProject } from './generate.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const flagged = new Set(['--runs', '--rounds', '--commands', '--keep'].map((name) => process.argv.indexOf(name) + 1));
const OTHERS = process.argv.slice(2).filter((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2)).map((other) => path.resolve(other));
const RUNS = Number(option('--runs', 3));
const ROUNDS = Math.min(Number(option('--rounds', 17)), 18);
const COMMANDS = option('--commands', 'take,context,show,history').split(',');
const KEEP = option('--keep', null);
/** The pool entry the measured `take` uses: past every round's. */
const MEASURED = 19;

/** The command lines measured, on a fixture. */
const COMMAND_LINES = {
  take: (fixture) => ['take', fixture.pools.take[MEASURED], '--as', WORKER],
  context: (fixture) => ['context', fixture.sample.context],
  show: (fixture) => ['show', fixture.sample.task],
  history: (fixture) => ['history', fixture.sample.task],
  update: (fixture) => ['update', fixture.sample.task, '--title', 'x', '--as', WORKER],
  'add-note': (fixture) => ['add-note', fixture.sample.task, 'x', '--as', WORKER],
};

/** One round of the tail: the bench's mutations, on the round's pool entries. */
const TAIL_ROUND = [
  (fixture, round) => ['take', fixture.pools.take[round], '--as', WORKER],
  (fixture, round) => ['submit', fixture.pools.submit[round], '--note', 'x', '--as', WORKER],
  (fixture, round) => ['accept', fixture.pools.accept[round], '--as', REVIEWER],
  (fixture) => ['add-task', '--initiative', fixture.initiative, '--title', 'x', '--body', 'y', '--acceptance', 'z', '--blocked-by', '', '--as', WORKER],
  (fixture, round) => ['update', fixture.sample.task, '--title', `t${round}`, '--as', WORKER],
  (fixture, round) => ['add-note', fixture.sample.task, `n${round}`, '--as', WORKER],
];

const envOf = (home) => ({ PATH: process.env.PATH, HOME: home, TASKDAG_HOME: home });

function run(root, fixture, home, args) {
  const ran = spawnSync(process.execPath, [path.join(root, 'dist/taskdag.js'), ...args], { cwd: fixture.checkout, env: envOf(home), encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(`${args.join(' ')}: exit ${ran.status} ${ran.stdout.slice(0, 300)}`);
}

/** Instructions of one process under callgrind, less the hash-seed search. */
function instructions(scratch, file, args, cwd, env) {
  const out = path.join(scratch, `callgrind.${process.pid}.${Date.now()}`);
  const ran = spawnSync('valgrind', ['--tool=callgrind', '--dump-instr=no', `--callgrind-out-file=${out}`, file, ...args], { cwd, env, encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(`${args.join(' ')} under callgrind: exit ${ran.status} ${ran.stdout.slice(0, 300)} ${ran.stderr.slice(-300)}`);
  const total = Number(/^summary: (\d+)/m.exec(readFileSync(out, 'utf8'))[1]);
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', out], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seed = /^\s*([\d,]+) .*v8::internal::Snapshot::Initialize/m.exec(annotated);
  rmSync(out, { force: true });
  return total - (seed ? Number(seed[1].replaceAll(',', '')) : 0);
}

/** Bytes of ledger past the checkpoint's position. */
function tailBytes(fixture, home) {
  const stateDir = path.join(home, 'projects', fixture.projectId);
  const named = /"ledger":\{"file":"([^"]+)","bytes":(\d+)\}/.exec(readFileSync(path.join(stateDir, 'tasks.json')).subarray(0, 64 * 1024).toString('utf8'));
  return named ? statSync(path.join(stateDir, named[1])).size - Number(named[2]) : null;
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-replay-tail-'));
const millions = (value) => Number((value / 1e6).toFixed(2));
try {
  const builds = [{ name: 'this', root: ROOT }, ...OTHERS.map((root) => ({ name: path.basename(root), root }))];
  const fixtures = [];
  for (const build of builds) {
    const kept = KEEP && path.join(KEEP, build.name);
    if (kept && existsSync(path.join(kept, 'fixture.json'))) {
      fixtures.push({ build, ...JSON.parse(readFileSync(path.join(kept, 'fixture.json'), 'utf8')) });
      continue;
    }
    const dir = kept ? path.join(kept, 'short') : path.join(scratch, build.name);
    if (kept) mkdirSync(kept, { recursive: true });
    const fixture = await writeProject(dir, 's10000', { size: 10_000, logEntries: 100_000, poolSize: 20 }, storeOf(build.root));
    const longDir = `${dir}-tail`;
    cpSync(dir, longDir, { recursive: true });
    const longHome = path.join(longDir, 'home');
    for (let round = 1; round <= ROUNDS; round++) for (const step of TAIL_ROUND) run(build.root, fixture, longHome, step(fixture, round));
    const variants = [{ name: 'short', dir }, { name: `${ROUNDS * TAIL_ROUND.length} records`, dir: longDir, tail: tailBytes(fixture, longHome) }];
    if (kept) writeFileSync(path.join(kept, 'fixture.json'), JSON.stringify({ fixture, variants }));
    fixtures.push({ build, fixture, variants });
  }
  const floor = [];
  for (let at = 0; at < RUNS; at++) floor.push(instructions(scratch, process.execPath, ['-e', '0'], scratch, { PATH: process.env.PATH }));
  console.log(JSON.stringify({ command: 'node -e 0', instructions_m: millions(median(floor)) }));
  for (const command of COMMANDS) {
    for (const { build, fixture, variants } of fixtures) {
      for (const variant of variants) {
        const counts = [];
        for (let at = 0; at < RUNS; at++) {
          const copy = path.join(scratch, 'copy');
          rmSync(copy, { recursive: true, force: true });
          cpSync(variant.dir, copy, { recursive: true });
          const home = path.join(copy, 'home');
          const checkout = path.join(copy, 'checkout');
          counts.push(instructions(scratch, process.execPath, [path.join(build.root, 'dist/taskdag.js'), ...COMMAND_LINES[command](fixture)], checkout, envOf(home)));
        }
        console.log(JSON.stringify({ command, build: build.name, tail: variant.name, tail_bytes: variant.tail, instructions_m: millions(median(counts)), runs_m: counts.map(millions) }));
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
