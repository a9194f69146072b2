// Taskwarrior as a peer: installed by the bench's own setup when missing (root, Debian), and
// loaded with the shared workload through `task import`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { timed } from './measure.mjs';

const INSTALL_TIMEOUT_MS = 10 * 60_000;

function taskVersion() {
  const result = spawnSync('task', ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** `{ available: true, version }`, or `{ available: false, reason }`; never throws. */
export function ensureTaskwarrior(log) {
  let version = taskVersion();
  if (version) return { available: true, version, installed_by_bench: false };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return { available: false, reason: '`task` is not installed and the bench is not root, so it cannot apt-get install taskwarrior' };
  }
  log('Taskwarrior is missing: apt-get update && apt-get install -y taskwarrior');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'taskwarrior']]) {
    const result = spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
    if (result.status !== 0) {
      const why = result.error ? result.error.message : (result.stderr || result.stdout).trim().split('\n').slice(-2).join(' ');
      return { available: false, reason: `apt-get ${args[0]} failed: ${why}` };
    }
  }
  version = taskVersion();
  return version ? { available: true, version, installed_by_bench: true } : { available: false, reason: 'apt-get installed taskwarrior but `task --version` fails' };
}

/** A v4-shaped UUID derived from the task's index, so imports are reproducible. */
function uuidOf(index) {
  const hex = index.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

/**
 * A private Taskwarrior (its own rc file and data dir under `dir`) holding the shared workload.
 * Returns how to run `task` against it and how long the import took.
 */
export function taskwarriorProject(dir, plan) {
  const data = path.join(dir, 'data');
  mkdirSync(data, { recursive: true });
  const rc = path.join(dir, 'taskrc');
  writeFileSync(rc, `data.location=${data}\nconfirmation=off\nverbose=nothing\nhooks=off\n`);
  const entry = '20260105T090000Z';
  const tasks = plan.map((task, i) => ({
    uuid: uuidOf(i),
    description: task.title,
    status: task.done ? 'completed' : 'pending',
    entry,
    ...(task.done ? { end: entry } : {}),
    ...(task.deps.length > 0 ? { depends: task.deps.map(uuidOf) } : {}),
  }));
  const file = path.join(dir, 'import.json');
  writeFileSync(file, JSON.stringify(tasks));
  const options = { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, TASKRC: rc, TASKDATA: data } };
  const run = (args) => timed('task', args, options);
  const imported = run(['import', file]);
  if (imported.status !== 0) throw new Error(`task import failed: ${imported.stderr || imported.stdout}`);
  const ready = run(['+READY', 'count']);
  return { options, import_ms: imported.ms, ready_count: Number(ready.stdout.trim()) };
}

/** Taskwarrior's side of the shared workload, in the same shape as the taskdag scenarios. */
export const TASKWARRIOR_SCENARIOS = [
  { name: 'task +READY count', group: 'peer', counterpart: 'status', argv: () => ['+READY', 'count'] },
  { name: 'task add', group: 'peer', counterpart: 'add-task', argv: (_fixture, _id, run) => ['add', `Bench task ${run}`, 'project:shared'] },
];
