// Whether this build answers the whole-graph reads byte for byte as another build does (issue 28:
// a faster read path must not change an answer). Each build writes a project with its own
// generator (same seed, same content), a ledger tail of mutations is laid on it (a task taken,
// submitted and accepted, a gate resolved, a node updated, a task added behind a blocker), and
// then every build reads every project: so each reads the files the other writes, old and new.
// A claim's age is the one thing that moves between two runs (`age_ms`, and the message that says
// it): it is masked, everything else is compared as printed.
// Usage (after npm run build here and there):
//   node bench/answer-diff.mjs <other checkout> [--size 10000] [--commands 'status,status --limit 20,...']
// Exits 1 and prints the first difference when an answer differs.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timed } from './measure.mjs';
import { REVIEWER, WORKER } from './generate.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const flagged = new Set(['--size', '--commands'].map((name) => process.argv.indexOf(name) + 1));
const OTHER = process.argv.slice(2).find((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2));
if (!OTHER) {
  console.error("usage: node bench/answer-diff.mjs <other checkout> [--size 10000] [--commands 'status,status --limit 20']");
  process.exit(2);
}
const SIZE = Number(option('--size', 10000));
const DEFAULT_COMMANDS = ['status', 'status --limit 20', 'status --all --limit 20', 'status --limit 3 --stale-ms 0', 'status --initiative init-3', 'status --ranked --limit 10', 'status --claimed-by agent-2'];
const COMMANDS = option('--commands', DEFAULT_COMMANDS.join(',')).split(',');

const builds = [
  { name: 'this', root: ROOT },
  { name: 'other', root: path.resolve(OTHER) },
];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-answer-diff-'));

/** The answer with each claim's age masked (it follows the clock, not the build). */
const masked = (text) => text.replace(/"age_ms":\d+/g, '"age_ms":0').replace(/ for \d+ ms without/g, ' for 0 ms without');

function run(build, fixture, argv) {
  const result = timed(process.execPath, [path.join(build.root, 'dist/taskdag.js'), ...argv], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env } });
  if (result.status !== 0) throw new Error(`${build.name} ${argv.join(' ')}: exit ${result.status} ${result.stdout.slice(0, 300)} ${result.stderr.slice(0, 300)}`);
  return result.stdout;
}

/** The ledger tail: commits that move heads between buckets and change what blocks what. */
function mutate(build, fixture) {
  const [take, submit, accept] = [fixture.pools.take[0], fixture.pools.submit[0], fixture.pools.accept[0]];
  run(build, fixture, ['take', take, '--as', WORKER]);
  run(build, fixture, ['submit', submit, '--note', 'x', '--as', WORKER]);
  run(build, fixture, ['accept', accept, '--as', REVIEWER]);
  const gate = JSON.parse(run(build, fixture, ['status', '--kind', 'gate', '--limit', '1'])).gates.open[0].id;
  run(build, fixture, ['resolve', gate, '--choice', 'x', '--rationale', 'y', '--as', WORKER]);
  run(build, fixture, ['update', fixture.sample.task, '--title', 'renamed', '--as', WORKER]);
  const blocked = JSON.parse(run(build, fixture, ['status', '--status', 'blocked', '--limit', '1'])).tasks.blocked[0].id;
  run(build, fixture, ['add-task', '--initiative', fixture.initiative, '--title', 'x', '--body', 'y', '--acceptance', 'z', '--blocked-by', blocked, '--as', WORKER]);
}

let differences = 0;
try {
  const fixtures = {};
  for (const build of builds) {
    const { writeProject } = await import(path.join(build.root, 'bench/generate.mjs'));
    fixtures[build.name] = await writeProject(path.join(scratch, build.name), `d${SIZE}`, { size: SIZE, logEntries: SIZE * 2, poolSize: 2 });
  }
  // Answers read before the tail (a fresh checkpoint) and after it (heads marked since the save).
  for (const stage of ['checkpoint', 'tail']) {
    if (stage === 'tail') for (const build of builds) mutate(build, fixtures[build.name]);
    for (const [writer, fixture] of Object.entries(fixtures)) {
      for (const command of COMMANDS) {
        const argv = command.split(' ');
        const [mine, theirs] = builds.map((build) => masked(run(build, fixture, argv)));
        const same = mine === theirs;
        if (!same) differences += 1;
        const at = same ? -1 : [...mine].findIndex((char, index) => char !== theirs[index]);
        console.error(JSON.stringify({ stage, written_by: writer, command, bytes: mine.length, same, ...(same ? {} : { at, this: mine.slice(Math.max(0, at - 80), at + 80), other: theirs.slice(Math.max(0, at - 80), at + 80) }) }));
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(JSON.stringify({ size: SIZE, commands: COMMANDS.length, differences }));
process.exit(differences === 0 ? 0 : 1);
