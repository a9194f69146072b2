// The mean CPU of a mutation on the command line, checkpoint rewrites included, over a run long
// enough to cross several of them (issue 28: a lower checkpoint threshold shortens the ledger tail
// every command replays, and must not raise this mean). Each build writes the bench project with
// its own store; then, in rounds, a fresh `taskdag` process of each build (taking turns to go
// first) runs the next mutation of one cycle, a task's life: add-task (a 600-character body),
// update, add-note, take, submit, accept (records of 0.4-1.6 KB, as the bench's). Reported per
// build: the mean CPU (user + system) of every mutation, of those that rewrote the checkpoint (its
// inode changed) and of the others, how many rewrote, and the ledger tail left at the end.
// Usage (after npm run build here and there):
//   node bench/mutation-mean.mjs <other checkout>... [--size 10000] [--mutations 300]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REVIEWER, WORKER, storeOf, writeProject } from './generate.mjs';
import { timed } from './measure.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const flagged = new Set(['--size', '--mutations'].map((name) => process.argv.indexOf(name) + 1));
const others = process.argv.slice(2).filter((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2)).map((other) => path.resolve(other));
const size = Number(option('--size', 10000));
const mutations = Number(option('--mutations', 300));
const logEntriesOf = (nodes) => (nodes >= 50_000 ? 200_000 : nodes >= 10_000 ? 100_000 : nodes * 10);
const BODY = 'Carry the change through the service and its callers, then say what was left. '.repeat(8).slice(0, 600);

/** Mutation `step` of the cycle, on the task the cycle's add-task made (`task`, known after it). */
function mutation(step, fixture, task) {
  const cycle = Math.floor(step / 6);
  switch (step % 6) {
    case 0:
      return ['add-task', '--initiative', fixture.initiative, '--title', `task ${cycle}`, '--body', BODY, '--acceptance', 'its callers pass', '--blocked-by', '', '--as', WORKER];
    case 1:
      return ['update', task, '--title', `task ${cycle}, renamed`, '--as', WORKER];
    case 2:
      return ['add-note', task, `looked at the callers of task ${cycle}: three of them, two in the worker`, '--as', WORKER];
    case 3:
      return ['take', task, '--as', WORKER];
    case 4:
      return ['submit', task, '--note', 'done, the callers pass', '--as', WORKER];
    default:
      return ['accept', task, '--as', REVIEWER];
  }
}

const builds = [{ name: 'this', root: ROOT }, ...others.map((root) => ({ name: path.basename(root), root }))];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'taskdag-mutation-mean-'));
try {
  const state = {};
  for (const build of builds) {
    const fixture = await writeProject(path.join(scratch, build.name), `mm${size}`, { size, logEntries: logEntriesOf(size), poolSize: 2 }, storeOf(build.root));
    state[build.name] = { fixture, task: null, cpu: [], rewrote: [] };
  }
  for (let step = 0; step < mutations; step++) {
    for (const build of step % 2 === 0 ? builds : [...builds].reverse()) {
      const run = state[build.name];
      const checkpoint = path.join(run.fixture.stateDir, 'tasks.json');
      const before = fs.statSync(checkpoint).ino;
      const result = timed(process.execPath, [path.join(build.root, 'dist/taskdag.js'), ...mutation(step, run.fixture, run.task)], { cwd: run.fixture.checkout, env: { PATH: process.env.PATH, ...run.fixture.env } });
      if (result.status !== 0) throw new Error(`${build.name} step ${step}: exit ${result.status} ${result.stdout.slice(0, 300)}`);
      if (step % 6 === 0) run.task = JSON.parse(result.stdout).node.id;
      run.cpu.push(result.cpuMs);
      run.rewrote.push(fs.statSync(checkpoint).ino !== before);
    }
  }
  const mean = (values) => (values.length === 0 ? null : Number((values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(1)));
  const rows = builds.map(({ name }) => {
    const { cpu, rewrote, fixture } = state[name];
    const start = fs.readFileSync(path.join(fixture.stateDir, 'tasks.json')).toString('utf8', 0, 65536);
    const ledger = JSON.parse(/"ledger":(\{"file":"[^"]+","bytes":\d+\})/.exec(start)[1]);
    return {
      build: name,
      mean_cpu_ms: mean(cpu),
      rewrites: rewrote.filter(Boolean).length,
      mean_rewrite_cpu_ms: mean(cpu.filter((_, at) => rewrote[at])),
      mean_other_cpu_ms: mean(cpu.filter((_, at) => !rewrote[at])),
      tail_bytes_at_end: fs.statSync(path.join(fixture.stateDir, ledger.file)).size - ledger.bytes,
    };
  });
  console.log(JSON.stringify({ size, mutations, load: os.loadavg().map((value) => Number(value.toFixed(2))), rows }, null, 2));
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
