// `npm run build && node bench/pg-checkpoint-save.mjs`: what saving one checkpoint costs a
// PostgreSQL process and its database while the process goes on committing, by project size. A
// private PostgreSQL cluster (as the tests start one, fsync and synchronous commit on), one pool,
// one PgProjectStore seeded with the project: each round starts a checkpoint of the state in hand
// in the background (as a commit past the threshold does) and commits one note after another
// until it is saved. Reports the save's wall time, the process's CPU and longest turn of its event
// loop meanwhile, the database's CPU (every process of the cluster), the WAL it wrote, and the
// commits' latency. Options: --nodes 50000, --rounds 2, --build DIR (another build's root).
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { childrenCpuMsOf } from './server-driver.mjs';
import { seededPgProject } from './pg-seeded-project.mjs';

const { values: options } = parseArgs({ options: { nodes: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '2' }, build: { type: 'string' } } });
const ROOT = path.resolve(options.build ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const require = createRequire(path.join(ROOT, 'package.json'));
const { testPostgres } = require('./build/test/support/postgres.js');
const { buildState } = await import(path.join(ROOT, 'bench', 'generate.mjs'));

const databaseCpuMs = () => childrenCpuMsOf(Number(readFileSync(path.join(testPostgres().dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]));
const rows = [];
for (const size of options.nodes.split(',').map(Number)) {
  const { pool, store, note } = await seededPgProject(require, buildState, size);
  for (let index = 0; index < 20; index++) await note(`warm-up ${index}`);
  const walBytes = async () => Number((await pool.query("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn AS bytes")).rows[0].bytes);
  for (let round = 1; round <= Number(options.rounds); round++) {
    const turns = monitorEventLoopDelay({ resolution: 1 });
    turns.enable();
    const walBefore = await walBytes();
    const cpuBefore = process.cpuUsage();
    const databaseBefore = databaseCpuMs();
    const started = performance.now();
    // What a commit past the threshold starts (private to the store: a bench reaches in, nothing else does).
    store.saveCheckpoint(store.cached);
    let savedMs = null;
    void store.checkpointed().then(() => (savedMs = performance.now() - started));
    const latencies = [];
    while (savedMs === null) {
      const sent = performance.now();
      await note(`round ${round}`);
      latencies.push(performance.now() - sent);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const databaseMs = databaseCpuMs() - databaseBefore;
    turns.disable();
    latencies.sort((a, b) => a - b);
    rows.push({
      nodes: size,
      round,
      save_ms: Math.round(savedMs),
      process_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      longest_turn_ms: Math.round(turns.max / 1e6),
      database_cpu_ms: Math.round(databaseMs),
      wal_mb: Number((((await walBytes()) - walBefore) / 1e6).toFixed(1)),
      commits: latencies.length,
      commit_p50_ms: Number(latencies[latencies.length >> 1].toFixed(1)),
      commit_max_ms: Number(latencies.at(-1).toFixed(1)),
    });
    process.stderr.write(`[bench:pg-checkpoint-save] ${JSON.stringify(rows.at(-1))}\n`);
  }
  await pool.end();
}
process.stdout.write(
  [
    `${ROOT}, a checkpoint saved while one process commits`,
    '',
    '| nodes | round | save ms | process CPU ms | longest turn ms | database CPU ms | WAL MB | commits meanwhile | commit p50 ms | commit max ms |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((row) => `| ${row.nodes} | ${row.round} | ${row.save_ms} | ${row.process_cpu_ms} | ${row.longest_turn_ms} | ${row.database_cpu_ms} | ${row.wal_mb} | ${row.commits} | ${row.commit_p50_ms} | ${row.commit_max_ms} |`),
    '',
  ].join('\n'),
);
process.exit(0);
