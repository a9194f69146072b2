// Whether this build answers the whole-graph reads byte for byte as another build does (issue 28:
// a faster read path must not change an answer). Each build writes the project this checkout's
// generator plans with its own store (its own layout), a ledger tail of mutations is laid on it (a task taken,
// submitted and accepted, a gate resolved, a node updated, a task added behind a blocker), and
// then every build reads every project: so each reads the files the other writes, old and new.
// A claim's age is the one thing that moves between two runs (`age_ms`, and the message that says
// it): it is masked, everything else is compared as printed.
// Usage (after npm run build here and there):
//   node bench/answer-diff.mjs <other checkout> [--size 10000] [--commands 'status,status --limit 20,context {context},...']
// (a word `{name}` in a command is the fixture's sample of that name: `{context}` the bench scope's
// task, `{task}` the large-answer one, `{knowledge}` a knowledge id.)
// Exits 1 and prints the first difference when an answer differs.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timed } from './measure.mjs';
import { REVIEWER, SCOPED_SAMPLE, WORKER, storeOf, writeProject } from './generate.mjs';

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

/**
 * The ledger tail: commits that move heads between buckets and change what blocks what, and that
 * change the knowledge the bench scope's task matches (an item's scope and title edited, one
 * deprecated, one added, one moved out of the scope).
 */
function mutate(build, fixture) {
  const [edited, deprecated, unscoped] = fixture.sample.scoped_knowledge;
  run(build, fixture, ['update', edited, '--title', 'edited in the tail', '--scope-node-ids', fixture.sample.context, '--as', WORKER]);
  run(build, fixture, ['deprecate-knowledge', deprecated, '--reason', 'tail', '--as', WORKER]);
  run(build, fixture, ['update', unscoped, '--scope-tags', 'x', '--scope-domains', 'y', '--scope-initiatives', fixture.initiative, '--as', WORKER]);
  run(build, fixture, ['add-knowledge', 'K-bench-tail', '--initiative', fixture.initiative, '--title', 'added in the tail', '--body', 'b', '--scope-tags', SCOPED_SAMPLE.value, '--as', WORKER]);
  const [take, submit, accept] = [fixture.pools.take[0], fixture.pools.submit[0], fixture.pools.accept[0]];
  const taken = run(build, fixture, ['take', take, '--as', WORKER]);
  run(build, fixture, ['submit', submit, '--note', 'x', '--as', WORKER]);
  run(build, fixture, ['accept', accept, '--as', REVIEWER]);
  const gate = JSON.parse(run(build, fixture, ['status', '--kind', 'gate', '--limit', '1'])).gates.open[0].id;
  run(build, fixture, ['resolve', gate, '--choice', 'x', '--rationale', 'y', '--as', WORKER]);
  run(build, fixture, ['update', fixture.sample.task, '--title', 'renamed', '--as', WORKER]);
  const blocked = JSON.parse(run(build, fixture, ['status', '--status', 'blocked', '--limit', '1'])).tasks.blocked[0].id;
  run(build, fixture, ['add-task', '--initiative', fixture.initiative, '--title', 'x', '--body', 'y', '--acceptance', 'z', '--blocked-by', blocked, '--as', WORKER]);
  return taken;
}

/** A mutation's answer with the times it was made at masked (they follow the clock, not the build). */
const timesMasked = (text) => masked(text).replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"T"');

let differences = 0;
try {
  const fixtures = {};
  for (const build of builds) {
    fixtures[build.name] = await writeProject(path.join(scratch, build.name), `d${SIZE}`, { size: SIZE, logEntries: SIZE * 2, poolSize: 2 }, storeOf(build.root));
  }
  // Answers read before the tail (a fresh checkpoint) and after it (heads marked since the save).
  for (const stage of ['checkpoint', 'tail']) {
    if (stage === 'tail') {
      // Each build takes the same task of the same graph (the bench scope's, after the knowledge tail): its answer holds the task's context.
      const [mine, theirs] = builds.map((build) => timesMasked(mutate(build, fixtures[build.name])));
      if (mine !== theirs) differences += 1;
      const at = [...mine].findIndex((char, index) => char !== theirs[index]);
      console.error(JSON.stringify({ stage, command: "take (each build on its own project)", bytes: mine.length, same: mine === theirs, ...(mine === theirs ? {} : { at, this: mine.slice(Math.max(0, at - 80), at + 80), other: theirs.slice(Math.max(0, at - 80), at + 80) }) }));
    }
    for (const [writer, fixture] of Object.entries(fixtures)) {
      for (const command of COMMANDS) {
        const argv = command.split(' ').map((word) => word.replace(/^\{(\w+)\}$/, (_, name) => fixture.sample[name]));
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
