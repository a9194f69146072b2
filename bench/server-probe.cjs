// Preloaded (--require) into the `server run` the server bench drives: measures how long the
// server's event loop is held up (perf_hooks monitorEventLoopDelay, 10 ms resolution) and how long
// each ledger fsync takes (the callback fs.fsync the hot store syncs a group commit's append with,
// timed from the call to its callback), and counts the checkpoints it renames into place (a rename
// onto tasks.json). Each SIGUSR2 writes what was measured since the previous one (the loop delay's
// p99 and max, the fsyncs' count, p50 and p99, in ms, the checkpoints, and a sequence number)
// to the file named by BENCH_PROBE_FILE, then starts measuring afresh: the bench signals as a
// step's window opens and as it closes. A step's mutations wait for their group's fsync, so on a
// machine whose disk is shared, a slow fsync and not the server can be what bounds a step.
const fs = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
let fsyncs = [];
// Replaced before the server's modules load, so the copy of `fs` graceful-fs makes holds this one.
const fsync = fs.fsync;
fs.fsync = function timedFsync(fd, callback) {
  const started = performance.now();
  return fsync.call(fs, fd, (error) => {
    fsyncs.push(performance.now() - started);
    callback(error);
  });
};
let checkpoints = 0;
const renameSync = fs.renameSync;
fs.renameSync = function countedRename(from, to) {
  renameSync.call(fs, from, to);
  if (String(to).endsWith('/tasks.json')) checkpoints += 1;
};
let sequence = 0;
process.on('SIGUSR2', () => {
  sequence += 1;
  const ms = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10;
  const sorted = fsyncs.sort((a, b) => a - b);
  const at = (q) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  const report = { sequence, p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max), fsyncs: sorted.length, fsync_p50_ms: at(0.5), fsync_p99_ms: at(0.99), checkpoints };
  histogram.reset();
  fsyncs = [];
  checkpoints = 0;
  const file = process.env.BENCH_PROBE_FILE;
  if (!file) return;
  // Written aside and renamed in: the bench polls the file and must never read it half written.
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
  renameSync.call(fs, `${file}.tmp`, file);
});
