// What the commit that rewrites the checkpoint costs on the command line, this checkout against
// other builds (issue 28: the history index a rewrite extends must not make it grow badly). Each
// build writes the bench project of this checkout's generator with its own store, then, in
// interleaved rounds, a fresh process of each build commits 60 KB notes on it until `--crossings`
// of those commits have rewritten the checkpoint; the CPU of those commits (user + system, of that
// process) is reported, with that of the commits that wrote no checkpoint.
// Usage (after npm run build here and there):
//   node bench/checkpoint-rewrite.mjs <other checkout>... [--size 50000] [--rounds 3] [--crossings 2]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { storeOf, writeProject } from './generate.mjs';
import { median } from './measure.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** The log point-pairs builds with each size: 100k entries, 200k at 50k nodes, ten a node below 10k. */
const logEntriesOf = (size) => (size >= 50_000 ? 200_000 : size >= 10_000 ? 100_000 : size * 10);
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5], Number(process.argv[6]));
else await main();

async function main() {
  const flagged = new Set(['--size', '--rounds', '--crossings'].map((name) => process.argv.indexOf(name) + 1));
  const others = process.argv.slice(2).filter((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2)).map((other) => path.resolve(other));
  const size = Number(option('--size', 50000));
  const rounds = Number(option('--rounds', 3));
  const crossings = Number(option('--crossings', 2));
  const builds = [{ name: 'this', root: ROOT }, ...others.map((root) => ({ name: path.basename(root), root }))];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'taskdag-checkpoint-rewrite-'));
  try {
    const samples = {};
    for (const build of builds) {
      const fixture = await writeProject(path.join(scratch, build.name), `rw${size}`, { size, logEntries: logEntriesOf(size), poolSize: 2 }, storeOf(build.root));
      samples[build.name] = { root: build.root, stateDir: fixture.stateDir, task: fixture.sample.task, crossing: [], plain: [] };
    }
    for (let round = 0; round < rounds; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const sample = samples[build.name];
        const out = JSON.parse(execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', sample.root, sample.stateDir, sample.task, String(crossings)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
        sample.crossing.push(...out.crossing);
        sample.plain.push(...out.plain);
      }
    }
    const load = os.loadavg().map((value) => Number(value.toFixed(2)));
    const rows = Object.entries(samples).map(([name, { crossing, plain }]) => ({ build: name, rewrite_commit_cpu_ms: Math.round(median(crossing)), other_commit_cpu_ms: plain.length > 0 ? Number(median(plain).toFixed(1)) : null, rewrite_commits: crossing.map(Math.round) }));
    console.log(JSON.stringify({ size, rounds, crossings, load, rows }, null, 2));
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** In a fresh process of the build at `root`: notes on `task` until `crossings` commits rewrote the checkpoint (its inode changed). */
async function child(root, stateDir, task, crossings) {
  const required = createRequire(path.join(root, 'package.json'));
  const { FsProjectStore } = required('./build/adapters/fs-project-store.js');
  const { stateDirectoryLock } = required('./build/adapters/flock-project-lock.js');
  const { GraphDraft } = required('./build/domain/draft.js');
  const { addNote } = required('./build/domain/lifecycle.js');
  const store = new FsProjectStore('bench', stateDir, stateDirectoryLock(stateDir));
  const checkpoint = path.join(stateDir, 'tasks.json');
  const [crossing, plain] = [[], []];
  for (let note = 0; crossing.length < crossings; note++) {
    const before = fs.statSync(checkpoint).ino;
    const cpu = process.cpuUsage();
    await store.transact((graph) => {
      const draft = new GraphDraft(graph, '2026-11-26T00:00:00.000Z', 'bench');
      addNote(draft, task, `note ${note} ${'x'.repeat(60_000)}`);
      return { result: null, changes: draft.changes() };
    });
    const used = process.cpuUsage(cpu);
    (fs.statSync(checkpoint).ino !== before ? crossing : plain).push((used.user + used.system) / 1000);
  }
  console.log(JSON.stringify({ crossing, plain }));
}
