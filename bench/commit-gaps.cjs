// The timeline of a server's commits, in two parts: how long each commit waited on its store (an
// INSERT's round trip to PostgreSQL, an fsync of the ledger on files) and how long the server then
// ran before the next commit went out (its JavaScript between two commits: the answers of the group
// just committed, the reads that waited for it, the next group's work). Preloaded into each server:
//   BENCH_SERVER_NODE_ARGS="--require $PWD/bench/commit-gaps.cjs" COMMIT_GAPS_DIR=/tmp/gaps \
//     node bench/scale-out.mjs --only files-1,postgresql-1 --nodes 10000 --seconds 5
// then `node bench/commit-gaps.cjs /tmp/gaps` prints, per server process, the mean, median and 90th
// percentile of both (in ms, the first third of each process's commits left out: its load and
// warm-up). A commit to PostgreSQL is a write of over 2,000 bytes on a socket to a `.s.PGSQL.`
// path (the INSERT of a group's change set; reads and checks are shorter), its end the first bytes
// that come back; on files, an `fs.fsync` call to its callback. Timed with performance.now() in
// the server's own process; each process writes its timeline to COMMIT_GAPS_DIR/<pid>.json every
// second.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

if (require.main === module) report(process.argv[2]);
else record(process.env.COMMIT_GAPS_DIR);

function record(dir) {
  if (!dir) throw new Error('commit-gaps.cjs: set COMMIT_GAPS_DIR to the directory the timelines go to');
  const net = require('node:net');
  const { performance } = require('node:perf_hooks');
  /** [start, end] of each commit's wait, in ms of this process's clock. */
  const waits = [];
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    const target = typeof args[0] === 'string' ? args[0] : Array.isArray(args[0]) ? args[0][0]?.path : args[0]?.path;
    if (typeof target === 'string' && target.includes('.s.PGSQL.')) {
      this.toPostgres = true;
      this.on('data', () => {
        if (this.commitSent === undefined) return;
        waits.push([this.commitSent, performance.now()]);
        this.commitSent = undefined;
      });
    }
    return connect.apply(this, args);
  };
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (chunk, ...rest) {
    if (this.toPostgres && chunk && chunk.length > 2000) this.commitSent = performance.now();
    return write.call(this, chunk, ...rest);
  };
  const fsync = fs.fsync;
  fs.fsync = function (fd, callback) {
    const start = performance.now();
    return fsync.call(fs, fd, (error) => {
      waits.push([start, performance.now()]);
      callback(error);
    });
  };
  fs.mkdirSync(dir, { recursive: true });
  setInterval(() => fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ argv: process.argv.slice(2), waits })), 1000).unref();
}

function report(dir) {
  if (!dir) throw new Error('usage: node bench/commit-gaps.cjs DIR');
  const figures = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (share) => sorted[Math.floor(share * (sorted.length - 1))].toFixed(2);
    return `mean ${(values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(2)}, median ${at(0.5)}, p90 ${at(0.9)}`;
  };
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const { argv, waits } = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const kept = waits.slice(Math.floor(waits.length / 3));
    if (kept.length < 2) continue;
    const waited = kept.map(([start, end]) => end - start);
    const ran = kept.slice(1).map(([start], index) => start - kept[index][1]);
    process.stdout.write(`${argv.join(' ')}: ${kept.length} commits; waiting on the store ${figures(waited)} ms; running between commits ${figures(ran)} ms\n`);
  }
}
