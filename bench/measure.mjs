// Runs whole processes and measures them: wall time (spawn to exit, as an agent's shell pays
// it), and for Node processes their CPU time and peak resident memory as they report them
// (probe.cjs). Other processes' peak memory comes from GNU time when it is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const GNU_TIME = '/usr/bin/time';
const MAX_OUTPUT = 1024 * 1024 * 1024;
const PROBE = path.join(path.dirname(new URL(import.meta.url).pathname), 'probe.cjs');

export const MEMORY_METHOD =
  'Node processes: VmHWM from /proc/self/status at exit (probe.cjs); Taskwarrior: GNU time %M' + (existsSync(GNU_TIME) ? '' : ' (not installed here)');

/**
 * One run: milliseconds from spawn to exit, the exit status and what it printed; for Node
 * processes also `cpuMs` and `rssKb` from the probe.
 */
export function timed(command, args, options) {
  const node = command === process.execPath;
  const started = process.hrtime.bigint();
  const result = spawnSync(command, node ? ['--require', PROBE, ...args] : args, {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe', ...(node ? ['pipe'] : [])],
    maxBuffer: MAX_OUTPUT,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error) throw result.error;
  const run = { ms, status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8'), cpuMs: null, rssKb: null };
  if (node) {
    try {
      const probe = JSON.parse(result.output[3].toString('utf8'));
      Object.assign(run, { cpuMs: probe.cpu_ms, rssKb: probe.max_rss_kb });
    } catch {
      // The process died before its exit handler ran: CPU and memory stay unknown.
    }
  }
  return run;
}

/** A run of a process that reports no memory itself, under GNU time when installed. */
export function timedWithPeakMemory(command, args, options, scratch) {
  if (command === process.execPath || !existsSync(GNU_TIME)) return timed(command, args, options);
  const report = path.join(scratch, `rss-${process.pid}-${Date.now()}.txt`);
  const run = timed(GNU_TIME, ['-f', '%M', '-o', report, command, ...args], options);
  try {
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    run.rssKb = Number(lines[lines.length - 1]) || null;
  } catch {
    // No report: the child died before GNU time could write one.
  }
  rmSync(report, { force: true });
  return run;
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
