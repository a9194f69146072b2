// What a ledger tail costs `status --limit 20` (BENCHMARKS.md, end of the seventh pass): a 10k-node
// bench project as written, then after 100 updates of one task's title or 100 notes on it.
// Usage (after npm run build): node bench/status-tail.mjs [update|note] [checkout, default this one]
// Prints the median CPU (user + system, 7 runs) of `status --limit 20` and of `--version` before
// and after the tail.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './measure.mjs';

const kind = process.argv[2] ?? 'update';
const root = path.resolve(process.argv[3] ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const { writeProject, storeOf } = await import(path.join(root, 'bench/generate.mjs'));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-status-tail-'));
try {
  const fixture = await writeProject(path.join(scratch, 'p'), 's10000', { size: 10_000, logEntries: 100_000, poolSize: 20 }, storeOf(root));
  const binary = path.join(root, 'dist/taskdag.js');
  const options = { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, encoding: 'utf8' };
  const cpuMs = (args) => {
    const ran = spawnSync('bash', ['-c', 'TIMEFORMAT=%U+%S; time node "$@" >/dev/null', 'bash', binary, ...args], options);
    const [user, system] = ran.stderr.trim().split('\n').pop().split('+').map(Number);
    return (user + system) * 1000;
  };
  const measure = (label) => {
    const status = [];
    const version = [];
    for (let run = 0; run < 7; run++) {
      version.push(cpuMs(['--version']));
      status.push(cpuMs(['status', '--limit', '20']));
    }
    console.log(JSON.stringify({ tail: label, status_cpu_ms: Math.round(median(status)), version_cpu_ms: Math.round(median(version)) }));
  };
  measure('none');
  for (let step = 0; step < 100; step++) {
    const args = kind === 'note' ? ['add-note', fixture.sample.task, `n${step}`, '--as', 'w'] : ['update', fixture.sample.task, '--title', `t${step}`, '--as', 'w'];
    const ran = spawnSync(process.execPath, [binary, ...args], options);
    if (ran.status !== 0) throw new Error(`${args.join(' ')}: exit ${ran.status} ${ran.stdout.slice(0, 300)}`);
  }
  measure(`100 ${kind}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
