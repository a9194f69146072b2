// `node --expose-gc bench/hot-store.mjs [--nodes 50000] [--copies 15]`: what a server's hot store
// holds and spends for one project, in this process: the heap its state takes once loaded (the
// heads and edges read, as the first requests read them), the CPU time of that load, and the CPU
// time of taking a background checkpoint's copy (copyForCheckpoint), the one part of a checkpoint
// done on the event loop (median and least of --copies). Prints one JSON line. BENCHMARKS.md,
// issue 28 item 3.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildState } from './generate.mjs';

const require = createRequire(import.meta.url);
const { FsProjectStore } = require('../build/adapters/fs-project-store.js');
const { copyForCheckpoint } = require('../build/adapters/checkpoint-file.js');
const { stateDirectoryLock } = require('../build/adapters/flock-project-lock.js');
const { edgesOf } = require('../build/domain/node-map.js');

const { values: options } = parseArgs({ options: { nodes: { type: 'string', default: '50000' }, copies: { type: 'string', default: '15' } } });
if (typeof gc !== 'function') throw new Error('run with node --expose-gc: the heap is measured after full collections');
const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1_000;
};
const location = mkdtempSync(path.join(os.tmpdir(), 'taskdag-hot-store-'));
try {
  await new FsProjectStore('bench', location, stateDirectoryLock(location)).replace(buildState({ size: Number(options.nodes), logEntries: 100, poolSize: 10 }).state);
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const loadStarted = process.cpuUsage();
  const hot = new FsProjectStore('bench', location, stateDirectoryLock(location), undefined, true);
  const graph = await hot.readGraph((read) => {
    read.indexes.statuses.all();
    edgesOf(read);
    return read;
  });
  const loadCpuMs = cpuMs(loadStarted);
  gc();
  gc();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  const copies = [];
  for (let copy = 0; copy < Number(options.copies); copy++) {
    const started = process.cpuUsage();
    copyForCheckpoint(graph);
    copies.push(cpuMs(started));
  }
  copies.sort((a, b) => a - b);
  const round = (value) => Math.round(value * 100) / 100;
  process.stdout.write(
    `${JSON.stringify({ nodes: Number(options.nodes), heap_mb: round(heapMb), load_cpu_ms: round(loadCpuMs), copy_cpu_ms_median: round(copies[copies.length >> 1]), copy_cpu_ms_least: round(copies[0]), load_average: round(os.loadavg()[0]) })}\n`,
  );
} finally {
  rmSync(location, { recursive: true, force: true });
}
