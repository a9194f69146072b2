// `node bench/plugins.mjs [--size N] [--runs N]`: what policy plugins cost a project that has them
// (docs/plugins.md). Two generated projects of the same size, one with the two example plugins
// installed; each command runs on both in turn, so both see the same machine load, and the
// report is the ratio of their medians. (What plugins cost a project without them is the
// ordinary bench against the branch's base: BENCHMARKS.md.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WORKER, writeProject } from './generate.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CLI = path.join(ROOT, 'dist', 'taskdag.js');
const EXAMPLES = path.join(ROOT, 'examples', 'plugins');
const { values: options } = parseArgs({ options: { size: { type: 'string', default: '10000' }, runs: { type: 'string', default: '15' } } });
const size = Number(options.size);
const runs = Number(options.runs);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-bench-plugins-'));
try {
  const project = (name) => writeProject(path.join(scratch, name), name, { size, logEntries: size * 10, poolSize: runs + 2 });
  const without = await project('without');
  const withPlugins = await project('with');
  run(withPlugins, ['plugin', 'add', path.join(EXAMPLES, 'restore-guard.js'), '--as', 'orchestrator']);
  // A limit no agent of the fixture reaches: every command is allowed, and all the checking is paid.
  run(withPlugins, ['plugin', 'add', path.join(EXAMPLES, 'wip-limit.js'), '--data', '{"limit":1000000}', '--as', 'orchestrator']);
  const commands = [
    ['status', () => ['status']],
    ['context', (fixture) => ['context', fixture.sample.task, '--as', WORKER]],
    ['take', (fixture, at) => ['take', fixture.pools.take[at], '--as', WORKER]],
    ['update', (fixture) => ['update', fixture.sample.task, '--title', 'x', '--as', WORKER]],
  ];
  console.log(`| command (${size} nodes, ${runs} runs) | without plugins, median ms | with restore-guard and wip-limit | ratio |`);
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, argv] of commands) {
    const times = { without: [], with: [] };
    for (let at = 0; at < runs; at++) {
      times.without.push(run(without, argv(without, at)));
      times.with.push(run(withPlugins, argv(withPlugins, at)));
    }
    const [a, b] = [median(times.without), median(times.with)];
    console.log(`| ${name} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(3)} |`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function run(fixture, argv) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [CLI, ...argv], { cwd: fixture.checkout, env: { ...process.env, ...fixture.env } });
  if (result.status !== 0) throw new Error(`taskdag ${argv.join(' ')}: ${result.stdout}${result.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
