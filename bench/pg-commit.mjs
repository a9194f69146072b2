// `npm run build && node bench/pg-commit.mjs`: what one PostgreSQL commit and one read cost in the
// store itself, with no HTTP and no other process, by project size. A private PostgreSQL cluster
// (as the tests start one, fsync and synchronous commit on), one pool, one PgProjectStore: each
// size is seeded, warmed (20 commits, then a pause for the checkpoint they call for), then timed
// over N commits of one appended note each, one after the other, and N reads; before that, a
// process with nothing in hand loads it (its first read: wall time, CPU, longest turn). Also counts the
// statements (round trips) the timed commits sent. Options: --nodes 1000,10000,50000, --commits
// 300, --build DIR (another build's root, to compare builds in one run; default this one), --tail
// MB (before the cold load, notes of about 5 KB, the size of a group commit of bench/scale-out.mjs,
// are committed until the change sets after the newest checkpoint reach MB: the load replays
// them, as a restarted process or a new owner replays at most the checkpoint threshold's worth;
// choose MB under the threshold, or a checkpoint is saved meanwhile and the tail starts again).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { seededPgProject } from './pg-seeded-project.mjs';

const { values: options } = parseArgs({
  options: { nodes: { type: 'string', default: '1000,10000,50000' }, commits: { type: 'string', default: '300' }, build: { type: 'string' }, tail: { type: 'string', default: '0' } },
});
const ROOT = path.resolve(options.build ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const require = createRequire(path.join(ROOT, 'package.json'));
const { PgProjectStoreFactory } = require('./build/adapters/postgres/pg-project-store.js');
const { buildState } = await import(path.join(ROOT, 'bench', 'generate.mjs'));
const COMMITS = Number(options.commits);

const rows = [];
for (const size of options.nodes.split(',').map(Number)) {
  const { pool, store, note } = await seededPgProject(require, buildState, size);
  const tailBytes = async () =>
    Number(
      (
        await pool.query(
          "SELECT coalesce(sum(octet_length(change::text)), 0) AS bytes FROM taskdag_change_sets WHERE project = 'bench' AND revision > (SELECT max(revision) FROM taskdag_checkpoint_manifests WHERE project = 'bench')",
        )
      ).rows[0].bytes,
    );
  const text = 'x'.repeat(5_000);
  while ((await tailBytes()) < Number(options.tail) * 1e6) for (let index = 0; index < 100; index++) await note(text);
  await store.checkpointed();
  const tail = await tailBytes();
  // What a process that has nothing in hand pays to load the project (its first read), on this process's CPU.
  // Its longest turn of the event loop too: what a server's other requests wait for meanwhile.
  const turns = monitorEventLoopDelay({ resolution: 1 });
  turns.enable();
  const cpuBefore = process.cpuUsage();
  let started = performance.now();
  await new PgProjectStoreFactory(pool).open('bench').readGraph((graph) => graph.revision);
  const loadMs = performance.now() - started;
  const loadCpu = process.cpuUsage(cpuBefore);
  turns.disable();
  for (let index = 0; index < 20; index++) await note(`warm-up ${index}`);
  await new Promise((resolve) => setTimeout(resolve, 8_000));
  const statements = countStatements(pool);
  started = performance.now();
  for (let index = 0; index < COMMITS; index++) await note(`note ${index}`);
  const commitMs = (performance.now() - started) / COMMITS;
  const sent = statements();
  started = performance.now();
  for (let index = 0; index < COMMITS; index++) await store.readGraph((graph) => graph.revision);
  const readMs = (performance.now() - started) / COMMITS;
  rows.push({
    nodes: size,
    tail_mb: Number((tail / 1e6).toFixed(1)),
    load_ms: Math.round(loadMs),
    load_cpu_ms: Math.round((loadCpu.user + loadCpu.system) / 1000),
    load_longest_turn_ms: Math.round(turns.max / 1e6),
    commit_ms: Number(commitMs.toFixed(2)),
    statements_per_commit: Number((sent / COMMITS).toFixed(2)),
    read_ms: Number(readMs.toFixed(2)),
  });
  process.stderr.write(`[bench:pg-commit] ${JSON.stringify(rows.at(-1))}\n`);
  await pool.end();
}
process.stdout.write(
  [
    `${ROOT}, ${COMMITS} commits and reads per size`,
    '',
    '| nodes | change sets after the checkpoint, MB | ms to load (cold process) | CPU ms of the load | longest turn of the load, ms | ms per commit | statements per commit | ms per read |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((row) => `| ${row.nodes} | ${row.tail_mb} | ${row.load_ms} | ${row.load_cpu_ms} | ${row.load_longest_turn_ms} | ${row.commit_ms} | ${row.statements_per_commit} | ${row.read_ms} |`),
    '',
  ].join('\n'),
);
process.exit(0);

/** Statements the pool sends from now on: through pool.query, and through the clients of transactions. */
function countStatements(pool) {
  let count = 0;
  const query = pool.query.bind(pool);
  pool.query = (...args) => (count++, query(...args));
  const connect = pool.connect.bind(pool);
  const counted = new WeakSet();
  pool.connect = (...args) => {
    if (args.length > 0) return connect(...args);
    return connect().then((client) => {
      // A pooled client comes back again: counted once.
      if (counted.has(client)) return client;
      counted.add(client);
      const clientQuery = client.query.bind(client);
      client.query = (...inner) => (count++, clientQuery(...inner));
      return client;
    });
  };
  return () => count;
}
