// `node bench/readers-writer.mjs [--readers 8] [--mutations 100] [--size 1000] [--cli FILE]`
// (after `npm run build`): does polling block writers (issue 9 item 6)? A writer runs
// `--mutations` `taskdag add-task` processes one after another on a generated project, first
// alone, then while `--readers` processes poll `taskdag status` in a loop; it prints the
// writer's p50/p99 per mutation in both cases, their ratio, and how many status reads completed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeProject } from './generate.mjs';
import { median, quantile, timed } from './measure.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: options } = parseArgs({
  options: {
    readers: { type: 'string', default: '8' },
    mutations: { type: 'string', default: '100' },
    size: { type: 'string', default: '1000' },
    cli: { type: 'string', default: path.join(ROOT, 'dist', 'taskdag.js') },
  },
});
const readers = Number(options.readers);
const mutations = Number(options.mutations);
const cli = path.resolve(options.cli);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-rw-'));

/** `count` add-task processes in a row; milliseconds each (spawn to exit). */
function writer(fixture, label, count) {
  const times = [];
  for (let at = 0; at < count; at++) {
    const args = [cli, 'add-task', `W-${label}-${at}`, '--initiative', fixture.initiative, '--title', 'w', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'writer'];
    const run = timed(process.execPath, args, { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, timeout: 120_000 });
    if (run.status !== 0) throw new Error(`add-task failed: ${run.stdout}${run.stderr}`);
    times.push(run.ms);
  }
  return times;
}

/** A process polling `taskdag status` until stopped; resolves to the number of reads it completed. */
function poller(fixture) {
  // Asynchronous spawns, so that the SIGTERM handler runs between reads.
  const script = `
    const { spawn } = require('node:child_process');
    let reads = 0, failures = 0;
    process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ reads, failures })); process.exit(0); });
    (async () => {
      for (;;) {
        const status = await new Promise((resolve) => spawn(process.execPath, [${JSON.stringify(cli)}, 'status'], { stdio: 'ignore' }).on('exit', resolve));
        if (status === 0) reads++; else failures++;
      }
    })();`;
  const child = spawn(process.execPath, ['-e', script], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const done = new Promise((resolve) => child.on('exit', () => resolve(JSON.parse(output || '{"reads":0,"failures":0}'))));
  return { stop: () => (child.kill('SIGTERM'), done) };
}

const figures = (times) => ({ p50_ms: Number(median(times).toFixed(1)), p99_ms: Number(quantile(times, 0.99).toFixed(1)), max_ms: Number(Math.max(...times).toFixed(1)) });

try {
  const fixture = await writeProject(path.join(scratch, 'project'), 'rw', { size: Number(options.size), logEntries: Number(options.size) * 10, poolSize: 2 });
  const alone = writer(fixture, 'alone', mutations);
  const polling = Array.from({ length: readers }, () => poller(fixture));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const contended = writer(fixture, 'polled', mutations);
  const polled = await Promise.all(polling.map((p) => p.stop()));
  const result = {
    project_nodes: Number(options.size),
    mutations,
    readers,
    writer_alone: figures(alone),
    writer_with_readers: figures(contended),
    p50_ratio: Number((median(contended) / median(alone)).toFixed(2)),
    p99_ratio: Number((quantile(contended, 0.99) / quantile(alone, 0.99)).toFixed(2)),
    status_reads_completed: polled.reduce((sum, p) => sum + p.reads, 0),
    status_reads_failed: polled.reduce((sum, p) => sum + p.failures, 0),
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
