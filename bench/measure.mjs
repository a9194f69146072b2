// Runs whole processes and measures them: wall time (spawn to exit, as an agent's shell pays it)
// and peak resident memory.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const GNU_TIME = '/usr/bin/time';
const MAX_OUTPUT = 1024 * 1024 * 1024;

/**
 * How peak memory is read: GNU time's %M (the kernel's ru_maxrss of the child) when installed,
 * otherwise, for Node children only, the child's own process.resourceUsage().maxRSS written at
 * exit by a preloaded script. Both are in KiB.
 */
export const RSS_METHOD = existsSync(GNU_TIME) ? 'GNU time %M (ru_maxrss of the child)' : 'process.resourceUsage().maxRSS via --require (Node children only)';
const RSS_PRELOAD = path.join(path.dirname(new URL(import.meta.url).pathname), 'max-rss.cjs');

/** One run, timed: milliseconds from spawn to exit, the exit status and what it printed. */
export function timed(command, args, options) {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: MAX_OUTPUT });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error) throw result.error;
  return { ms, status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

/** One run under a memory probe: its outcome plus peak RSS in KiB (null when it cannot be read). */
export function withPeakMemory(command, args, options, scratch) {
  const report = path.join(scratch, `rss-${process.pid}-${Date.now()}.txt`);
  let run;
  if (existsSync(GNU_TIME)) {
    run = timed(GNU_TIME, ['-f', '%M', '-o', report, command, ...args], options);
  } else if (command === process.execPath) {
    run = timed(command, ['--require', RSS_PRELOAD, ...args], { ...options, env: { ...options.env, BENCH_RSS_FILE: report } });
  } else {
    return { ...timed(command, args, options), rssKb: null };
  }
  let rssKb = null;
  try {
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    rssKb = Number(lines[lines.length - 1]) || null;
  } catch {
    // No report: the child died before writing it; memory stays unknown.
  }
  rmSync(report, { force: true });
  return { ...run, rssKb };
}

export function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function quantile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
