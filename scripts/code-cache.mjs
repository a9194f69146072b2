// Run by the build in a fresh Node (same V8 flags as a real start-up): loads the bundled program
// the way dist/taskdag.js does, runs a round of typical commands in a scratch project so that
// V8 compiles the functions they use, and stores the resulting code cache next to the bundle
// (`all`). Then a second fresh Node runs only the commands that read the graph in that project
// and stores theirs (`reads`, see entrypoints/cli/code-cache.ts): a read starts from a cache that
// holds no mutation's code, which V8 would otherwise deserialize on every read. Given the graph
// reads' program too (`code-cache.mjs PROGRAM GRAPH_READS_PROGRAM POINT_PROGRAM`), a fresh Node for
// each command it serves runs that command's reads through it, on a project that has lived a while,
// and stores the command's own cache; and given the point commands' program, a fresh Node for each
// point command runs its lines of the round alone, on the project that has lived, and stores that
// command's own.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { codeCacheFile, loadWithCodeCache, sealCodeCache } = require('../build/entrypoints/cli/code-cache.js');

const program = path.resolve(process.argv[2]);
/** The graph reads' program (entrypoints/cli/graph-reads.ts), when given: its `reads` cache is warmed on the same project. */
const graphReads = process.argv[3] === '--reads' || process.argv[3] === undefined ? undefined : path.resolve(process.argv[3]);
/** The point commands' program (entrypoints/cli/point-commands.ts), when given: its cache is warmed on the same project. */
const pointCommands = graphReads === undefined || process.argv[4] === undefined ? undefined : path.resolve(process.argv[4]);
const as = ['--as', 'build'];
const task = (id, blockedBy) => ['add-task', id, '--initiative', 'warm', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', blockedBy, ...as];
// Commands this build lacks answer UNKNOWN_COMMAND and cost nothing; listing them means the
// cache covers them as soon as they exist.
const COMMANDS = [
  ['init'],
  ['add-initiative', 'warm', ...as],
  task('T-a', ''),
  task('T-b', 'T-a'),
  ['add-gate', 'G-a', '--initiative', 'warm', '--title', 'G', '--body', 'b', '--purpose', 'p', ...as],
  ['add-knowledge', 'K-a', '--initiative', 'warm', '--title', 'K', '--body', 'b', '--scope-domains', 'x', ...as],
  ['add-edge', 'G-a', 'T-b', '--type', 'BLOCKS', ...as],
  ['show', 'T-b'],
  ['show', 'T-missing'],
  ['status'],
  ['context', 'T-b', ...as],
  ['search', 'K'],
  ['take', 'T-a', ...as],
  ['submit', 'T-a', '--note', 'n', ...as],
  ['accept', 'T-a', '--as', 'reviewer'],
  ['update', 'T-b', '--title', 't', ...as],
  ['state'],
  ['add-task', '--help'],
];
/** The reads, run on the project the round above made: show, status, context, search, history, state, initiatives. */
const READS = [['show', 'T-b'], ['show', 'T-missing'], ['status'], ['context', 'T-b', ...as], ['search', 'K'], ['history', 'T-b'], ['state'], ['initiatives']];
/**
 * The round that warms the point commands' own caches, on a project laid out as one that has
 * lived a while (bench/generate.mjs, `lived` below): its nodes in a checkpoint, found through the
 * slot table with their saved heads and edges, a short ledger tail after it. Warmed on the small
 * project above, whose nodes were all still in the ledger, a command's cache held code a real
 * project never runs and missed what it does run, which V8 then compiled on every command: 14 M
 * instructions more in an `accept` on a 10k-node project, 3.5 M in an `update` (BENCHMARKS.md).
 */
const livedRound = ({ initiative, sample, pools }, worker, reviewer) => [
  ['add-task', '--initiative', initiative, '--title', 'warm', '--body', 'b', '--acceptance', 'a', '--blocked-by', sample.task, '--as', worker],
  ['update', sample.task, '--title', 'p', '--as', worker],
  ['add-note', sample.task, 'noted', '--as', worker],
  ['context', sample.task, '--as', worker],
  ['take', pools.take[0], '--as', worker],
  ['take', 'T-missing', '--as', worker],
  ['submit', pools.submit[0], '--note', 'n', '--as', worker],
  ['accept', pools.accept[0], '--as', reviewer],
  ['release', pools.release[0], '--as', worker],
  ['reject', pools.reject[0], '--reason', 'r', '--as', reviewer],
  ['reopen', pools.reopen[0], '--reason', 'r', '--as', worker],
  ['cancel', pools.cancel[0], '--reason', 'r', '--as', worker],
  ['resolve', pools.resolve[0], '--choice', 'c', '--rationale', 'r', '--as', worker],
  ['deprecate-knowledge', pools['deprecate-knowledge'][0], '--reason', 'r', '--as', worker],
];
/**
 * The point commands, each with a cache of its own warmed by a fresh Node that runs only its lines
 * of the round: V8 deserializes the whole of a cache, so one warmed by every command cost each
 * more, and a command the round did not run compiled up to 8 KB of its code on every run.
 */
const POINT_OWN = require('../build/entrypoints/cli/point-commands.js').POINT_COMMANDS.map((operation) => operation.name);
/**
 * The reads that warm the graph reads' own caches, each command's in a fresh Node, on the project
 * that has lived (`lived` below) after its round: a node read from the checkpoint alone and one the
 * ledger tail changed, the status buckets with and without a limit, a search by word and by id.
 * Warmed on the small project above, whose nodes were all still in the ledger, `show` compiled some
 * 9 KB of code its cache lacked on every run on the bench's projects, `status` 6-25 KB.
 */
const livedReads = ({ sample, pools }) => [
  ['show', pools.take[0]],
  ['show', sample.task],
  ['show', 'T-missing'],
  ['status'],
  ['status', '--limit', '20'],
  ['search', sample.query],
  ['search', sample.knowledge],
  ['history', pools.take[0]],
  ['history', sample.task],
  ['state'],
  ['initiatives'],
];
/** The kind that stands for one point command of the point commands' program in a child's arguments. */
const POINT_ROUND = '--point';
/** The kind that stands for one graph read of the graph reads' program in a child's arguments. */
const GRAPH_READ = '--graph-read';

if (process.argv[3] === '--reads') await warmReads(process.argv[4], process.argv[5], process.argv[6], process.argv[7], process.argv[8]);
else await warmAll();

/** The `all` cache, from a round of every kind of command in a new scratch project; then the `reads` cache there. */
async function warmAll() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-code-cache-'));

  try {
    const checkout = path.join(scratch, 'checkout');
    const home = path.join(scratch, 'home');
    mkdirSync(checkout);
    await warm('all', COMMANDS, checkout, home);
    const warmReadsOf = (reader, ...command) =>
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), reader, '--reads', checkout, home, ...command], { stdio: ['ignore', 'ignore', 'inherit'] });
    warmReadsOf(program);
    const round = graphReads ? await lived(path.join(scratch, 'lived')) : undefined;
    if (graphReads) {
      for (const { name } of require('../build/entrypoints/cli/graph-reads.js').GRAPH_READS) {
        const reads = round.reads.filter(([word]) => word === name);
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), graphReads, '--reads', round.checkout, round.home, GRAPH_READ, name, JSON.stringify(reads)], { stdio: ['ignore', 'ignore', 'inherit'] });
      }
    }
    if (pointCommands) {
      for (const word of POINT_OWN) {
        const commands = round.commands.filter(([first]) => first === word);
        if (commands.length === 0) throw new Error(`code cache: the round runs no ${word}, which then has no cache of its own`);
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), pointCommands, '--reads', round.checkout, round.home, POINT_ROUND, word, JSON.stringify(commands)], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
      }
    }
  } finally {
    process.chdir(os.tmpdir());
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A project of a few hundred nodes written as the bench writes its own (bench/generate.mjs), with
 * a round of the same commands on other tasks committed after its checkpoint: a ledger tail of
 * every kind of change to replay, and heads to derive again for the nodes it changed. The round
 * that warms the point commands on it, the reads that warm the graph reads, and where it is.
 */
async function lived(dir) {
  const { writeProject, WORKER, REVIEWER } = await import('../bench/generate.mjs');
  const fixture = await writeProject(dir, 'warm', { size: 2_000, logEntries: 2_000, poolSize: 2, actionPools: true });
  const { HOME: home } = fixture.env;
  const { TASKDAG_AGENT: _agent, ...env } = process.env;
  const other = { ...fixture, pools: Object.fromEntries(Object.entries(fixture.pools).map(([name, ids]) => [name, ids.slice(1)])) };
  for (const line of livedRound(other, WORKER, REVIEWER).filter(([word, id]) => word !== 'context' && id !== 'T-missing')) {
    execFileSync(process.execPath, ['-e', `require(${JSON.stringify(program)}).run(${JSON.stringify(line)})`], { cwd: fixture.checkout, env: { ...env, TASKDAG_HOME: home }, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return { checkout: fixture.checkout, home, commands: livedRound(fixture, WORKER, REVIEWER), reads: livedReads(fixture) };
}

/**
 * The `reads` cache, in a process that has run nothing else, on the project in `checkout`; given
 * a program's kind of command (a graph read, a point command) with a `word` and the `commands`
 * that warm it, the cache of that command alone.
 */
async function warmReads(checkout, home, kind, word, commands) {
  try {
    if (kind === undefined) await warm('reads', READS, checkout, home);
    else await warm(word, JSON.parse(commands), checkout, home, { sparkplug: kind !== GRAPH_READ });
  } finally {
    process.chdir(os.tmpdir());
  }
}

/**
 * Runs `commands` in `checkout` with the program compiled afresh, then stores its code cache of kind
 * `cache`; without `sparkplug`, the round runs with V8's Sparkplug off (below).
 */
async function warm(cache, commands, checkout, home, { sparkplug = true } = {}) {
  process.chdir(checkout);
  process.env.TASKDAG_HOME = home;
  delete process.env.TASKDAG_AGENT;
  // Never from the previous build's cache: V8 accepts a cache whose source merely has the same
  // length, so a new bundle as long as the old one would run, and re-cache, the old code.
  rmSync(codeCacheFile(program, cache), { force: true });
  const { exports, script } = loadWithCodeCache(program, require, cache);
  // V8 marks a function it tiers up to Sparkplug as such (its SharedFunctionInfo), the cache keeps
  // the mark, and every process the cache starts compiles each marked function with Sparkplug at its
  // first call, hot in that process or not. A graph read runs little that gets hot (it answers from
  // saved pages), yet its round on the lived project marked a few hundred functions: 2.8 M
  // instructions of a `status --limit 20` at 10k nodes, 1.7 M net of those that still get hot
  // there. A point command's marks pay (`take` at 10k: 1.1 M dearer without them), so only the
  // graph reads' rounds run with Sparkplug off (BENCHMARKS.md, eleventh pass). The flag is V8's
  // default again (where V8 runs Sparkplug) before the cache is made: V8 rejects a cache made under
  // other flags.
  if (!sparkplug) v8.setFlagsFromString('--no-sparkplug');
  for (const argv of commands) await exports.run(argv, refuseOthers);
  if (!sparkplug) v8.setFlagsFromString('--sparkplug');
  // Sealed with a checksum of the cache and of the bundle's stamp, which the loader checks before V8 reads it.
  const sealed = sealCodeCache(script.createCachedData(), readFileSync(program));
  if (sealed === null) throw new Error('code cache: this Node cannot seal a code cache (no WebAssembly SIMD)');
  writeFileSync(codeCacheFile(program, cache), sealed);
  process.exitCode = 0;
}

/** The whole program, for the graph reads' or point commands' program while it warms up: never reached, as each runs only what it serves. */
async function refuseOthers(argv) {
  throw new Error(`code cache: ${program} handed on ${argv.join(' ')}`);
}

