// `npm run build && flock /work/bench.lock node bench/pg-append-cost.mjs`: what a PostgreSQL
// commit of the owning process (the fenced append of adapters/postgres/pg-project-store.ts) costs
// the database backend, and what each part of it costs: the same statement on variants of the
// schema and session, each in a database of its own on a private cluster (as bench/scale-out.mjs
// starts one: pg_stat_statements loaded, fsync and synchronous commit on), one connection each,
// commits one after the other as the store's group commit sends them. Each commit appends a change
// set of about --bytes of JSON made of nodes and log entries of bench/generate.mjs's state (each
// commit other nodes), the size of a group commit of bench/scale-out.mjs at 32 agents.
//
// Timed (the default): rounds interleave the variants; per variant, the backend's CPU per commit
// (/proc/PID/schedstat: time on a core, the kernel's work for it included), every other process
// of the cluster's (WAL writer, checkpointer...), wall time and WAL bytes per commit, and how the
// last change set is stored (compressed how, or not). Options: --commits 1000 (per variant and
// round), --rounds 3, --variants (a comma list of VARIANTS' names; default all), --bytes 7500.
//
// --callgrind: the cluster restarted under valgrind's callgrind, each variant's backend's
// instructions per commit (user space only: the kernel's part of the WAL flush is not counted),
// which a busy machine does not move: after a first connection (which builds the database's cache
// files), a connection that makes 20 commits and one that makes 20 and --commits more, the
// difference divided by --commits.
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { childrenOf } from './server-driver.mjs';

const { values: options } = parseArgs({
  options: {
    commits: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    variants: { type: 'string' },
    bytes: { type: 'string', default: '7500' },
    callgrind: { type: 'boolean', default: false },
  },
});
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const pg = require('pg');
const { migrate } = require('./build/adapters/postgres/pg-schema.js');
const { privateCluster } = require('./build/test/support/postgres.js');
const { buildState } = await import(path.join(ROOT, 'bench', 'generate.mjs'));

/** The owning process's append, as pg-project-store.ts sends it (APPEND_FENCED), without the owner row's lock in one variant. */
const fenced = (lock) => `
  WITH owner AS (
    SELECT notify FROM taskdag_owners WHERE project = $1 AND fence = $8 ${lock}
  ), appended AS (
    INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change)
    SELECT $1::text, $2::bigint, $3::bigint, $4::bigint, $5::json FROM owner
    RETURNING revision
  )
  SELECT CASE WHEN owner.notify THEN pg_notify($6, $7) END FROM appended, owner`;
const APPEND_FENCED = fenced('FOR SHARE');

/**
 * Each variant (by the name --variants takes): what it is, SQL run once on its fresh database
 * after the migrations, SQL run on its session, the statement, and the change set's JSON
 * (default: about --bytes).
 */
const VARIANTS = {
  current: { what: 'the append as sent (APPEND_FENCED), on the schema as migrated' },
  floor: { what: 'floor: the values selected back, nothing written', statement: 'SELECT $1::text, $2::bigint, $3::bigint, $4::bigint, $5::text, $6::text, $7::text, $8::bigint' },
  tiny: { what: 'a change set of 2 bytes', body: '{}' },
  // The extension's hooks still run, and return at once.
  'no-pgss': { what: 'pg_stat_statements tracking nothing', session: "SET pg_stat_statements.track = 'none'" },
  'no-for-share': { what: 'no FOR SHARE on the owner row', statement: fenced('') },
  'no-fk': { what: 'no foreign key (project, incarnation)', setup: 'ALTER TABLE taskdag_change_sets DROP CONSTRAINT taskdag_change_sets_project_incarnation_fkey' },
  'no-base-unique': { what: 'no UNIQUE (project, base_revision)', setup: 'ALTER TABLE taskdag_change_sets DROP CONSTRAINT taskdag_change_sets_project_base_revision_key' },
  pglz: { what: 'the column compressed with pglz (schema 11 and before)', setup: 'ALTER TABLE taskdag_change_sets ALTER COLUMN change SET COMPRESSION pglz' },
  main: { what: 'STORAGE MAIN (compressed, kept in the row)', setup: 'ALTER TABLE taskdag_change_sets ALTER COLUMN change SET STORAGE MAIN' },
  external: { what: 'STORAGE EXTERNAL (out of line, uncompressed)', setup: 'ALTER TABLE taskdag_change_sets ALTER COLUMN change SET STORAGE EXTERNAL' },
  // A new type takes the default compression: lz4 set again, as schema 12 sets it on this cluster.
  text: {
    what: 'a text column (no JSON check)',
    setup: 'ALTER TABLE taskdag_change_sets ALTER COLUMN change TYPE text, ALTER COLUMN change SET COMPRESSION lz4',
    statement: APPEND_FENCED.replace('$5::json', '$5::text'),
  },
  'wal-compression': { what: 'wal_compression on', session: 'SET wal_compression = on' },
  'sync-off': { what: 'synchronous_commit off (no WAL flush: not durable, measured only)', session: 'SET synchronous_commit = off' },
};
const names = options.variants ? options.variants.split(',') : Object.keys(VARIANTS);
for (const name of names) if (!VARIANTS[name]) throw new Error(`No variant ${name}: ${Object.keys(VARIANTS).join(', ')}`);
const COMMITS = Number(options.commits);
/** Commits before the counted ones: the statement prepared and the plan settled (a generic plan after five). */
const WARM_UP = 20;

const cluster = privateCluster(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.max=1000']);

const { state } = buildState({ size: 10_000, logEntries: 2_000, poolSize: 10 });
const nodes = Object.values(state.nodes);
/** Change set `revision`: log entries and nodes taken in turn from the generated state until it holds about --bytes. */
function changeSet(revision) {
  const change = { revision, log: [], nodes: {}, notes: [], edges: [], initiatives: {} };
  let size = 80;
  for (let index = revision * 7; size < Number(options.bytes); index++) {
    const entry = { ...state.log[index % state.log.length], revision };
    const node = nodes[index % nodes.length];
    change.log.push(entry);
    change.nodes[node.id] = { ...node, revision, updated_at: new Date(Date.UTC(2026, 0, 1) + revision * 1000).toISOString() };
    size += JSON.stringify(entry).length + JSON.stringify(change.nodes[node.id]).length + node.id.length + 4;
  }
  return JSON.stringify(change);
}
// Change sets made before the timing, so JSON.stringify is not counted.
const bodies = Array.from({ length: 64 }, (_, index) => changeSet(index + 1));
const bodyBytes = Math.round(bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length);

/** A variant's database: migrated, one project with its owner row, its setup run. */
async function prepare(name, index) {
  const variant = VARIANTS[name];
  const url = cluster.createDatabase(`append_${index}`);
  const setupPool = new pg.Pool({ connectionString: url, max: 1 });
  await migrate(setupPool);
  await setupPool.query("INSERT INTO taskdag_projects (id, version, fence_generation, revision, incarnation, log_length, edges_revision) VALUES ('bench', 1, 1, 0, 1, 0, 0)");
  await setupPool.query("INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change) VALUES ('bench', 1, -1, 0, '{}')");
  await setupPool.query("INSERT INTO taskdag_owners (project, process, fence, notify) VALUES ('bench', 'bench', 1, false)");
  if (variant.setup) await setupPool.query(variant.setup);
  await setupPool.end();
  return { name, what: variant.what, url, revision: 0, statement: { name: 'append', text: variant.statement ?? APPEND_FENCED }, body: variant.body, sessionSql: variant.session };
}

/** A connection of the variant's, its session set up: the client and its backend's pid. */
async function connect(session) {
  const client = new pg.Client({ connectionString: session.url });
  await client.connect();
  if (session.sessionSql) await client.query(session.sessionSql);
  const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  return { client, pid };
}

async function commit(session, client) {
  const revision = ++session.revision;
  const values = ['bench', 1, revision - 1, revision, session.body ?? bodies[revision % bodies.length], 'taskdag_revisions', '', 1];
  const { rowCount } = await client.query({ ...session.statement, values });
  if (rowCount !== 1) throw new Error(`${session.name}: commit ${revision} appended nothing`);
}

/** How the last change set of a variant is stored: what its setup made of the column. */
async function stored(client) {
  const sql = "SELECT coalesce(pg_column_compression(change), 'not compressed') AS stored FROM taskdag_change_sets ORDER BY revision DESC LIMIT 1";
  return (await client.query(sql)).rows[0].stored;
}

const sessions = [];
for (const [index, name] of names.entries()) sessions.push(await prepare(name, index));
const heading = `${ROOT}, change sets of ${bodyBytes} bytes of JSON on average`;
const table = options.callgrind ? await counted() : await timed();
process.stdout.write([`${heading}; ${table.heading}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`, '', ...table.rows, ''].join('\n'));
// The private cluster is stopped by the exit hook of test/support/postgres.js.
process.exit(0);

async function timed() {
  for (const session of sessions) Object.assign(session, await connect(session), { totals: { commits: 0, backendNs: 0, othersNs: 0, wallMs: 0, walBytes: 0 } });
  for (let round = 0; round < Number(options.rounds); round++) {
    // Each round starts the rotation one variant later.
    const order = sessions.map((_, index) => sessions[(index + round) % sessions.length]);
    for (const session of order) {
      for (let index = 0; index < WARM_UP; index++) await commit(session, session.client);
      const others = clusterPids().filter((pid) => pid !== session.pid);
      const othersBefore = others.reduce((sum, pid) => sum + onCoreNs(pid), 0);
      const backendBefore = onCoreNs(session.pid);
      const walBefore = await walLsn(session.client);
      const started = performance.now();
      for (let index = 0; index < COMMITS; index++) await commit(session, session.client);
      const wallMs = performance.now() - started;
      const walBytes = Number((await walLsn(session.client)) - walBefore);
      const totals = session.totals;
      totals.commits += COMMITS;
      totals.backendNs += onCoreNs(session.pid) - backendBefore;
      totals.othersNs += others.reduce((sum, pid) => sum + onCoreNs(pid), 0) - othersBefore;
      totals.wallMs += wallMs;
      totals.walBytes += walBytes;
      process.stderr.write(`[bench:pg-append-cost] round ${round + 1} ${session.name}: ${((onCoreNs(session.pid) - backendBefore) / COMMITS / 1e3).toFixed(0)} µs backend, ${(wallMs / COMMITS).toFixed(3)} ms wall a commit\n`);
    }
  }
  const perCommit = ({ totals }) => ({
    backend_us: Math.round(totals.backendNs / totals.commits / 1e3),
    others_us: Math.round(totals.othersNs / totals.commits / 1e3),
    wall_ms: Number((totals.wallMs / totals.commits).toFixed(3)),
    wal_bytes: Math.round(totals.walBytes / totals.commits),
  });
  const first = perCommit(sessions[0]).backend_us;
  const rows = [];
  for (const session of sessions) {
    const row = perCommit(session);
    rows.push(`| ${session.what} | ${row.backend_us} | ${signed(row.backend_us - first)} | ${row.others_us} | ${row.wall_ms} | ${row.wal_bytes} | ${await stored(session.client)} |`);
    await session.client.end();
  }
  return {
    heading: `${COMMITS} commits a variant in each of ${options.rounds} rounds`,
    rows: [
      '| variant | backend CPU µs a commit | vs the first | other database processes µs a commit | wall ms a commit | WAL bytes a commit | change set stored |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      ...rows,
    ],
  };
}

/** Time on a core, ns, of `pid` (all its threads: a backend has one). */
function onCoreNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

function postmasterPid() {
  return Number(readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function clusterPids() {
  return [postmasterPid(), ...childrenOf(postmasterPid())];
}

async function walLsn(client) {
  return BigInt((await client.query("SELECT pg_current_wal_lsn() - '0/0' AS lsn")).rows[0].lsn);
}

/**
 * The cluster stopped and started again under callgrind (a backend is forked, so it is followed
 * and writes its own file as it ends); per variant, the backend instructions of WARM_UP commits
 * and of WARM_UP + COMMITS, each on a connection of its own.
 */
async function counted() {
  await cluster.stop('fast');
  const out = path.join(cluster.dir, 'callgrind');
  mkdirSync(out);
  // Written by the server, which runs as the cluster's owner.
  const owner = statSync(cluster.dir);
  chownSync(out, owner.uid, owner.gid);
  const data = path.join(cluster.dir, 'data');
  const settings = ['-D', data, '-k', cluster.dir, '-c', 'listen_addresses=', '-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.max=1000'];
  const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}/callgrind.%p`, serverProgram(), ...settings];
  // As the cluster's owner (the package's postgres user when we are root), as privateCluster runs it.
  const command = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...valgrind] : valgrind;
  const server = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (chunk) => (log += chunk));
  await answering(sessions[0].url, server, () => log);
  const instructions = async (session, commits) => {
    const { client, pid } = await connect(session);
    for (let index = 0; index < commits; index++) await commit(session, client);
    const storedAs = await stored(client);
    await client.end();
    const file = path.join(out, `callgrind.${pid}`);
    // Written whole as the backend ends; `summary:` is its count of instructions.
    const summary = () => (existsSync(file) ? readFileSync(file, 'utf8').match(/^summary: (\d+)/m) : null);
    while (!summary()) await new Promise((resolve) => setTimeout(resolve, 100));
    return { total: Number(summary()[1]), storedAs };
  };
  const rows = [];
  let first = null;
  for (const session of sessions) {
    // The first backend on a database builds its caches' files, which the two counted ones then read alike.
    await instructions(session, 0);
    const warm = await instructions(session, WARM_UP);
    const all = await instructions(session, WARM_UP + COMMITS);
    const perCommit = Math.round((all.total - warm.total) / COMMITS);
    first ??= perCommit;
    rows.push(`| ${session.what} | ${thousands(perCommit)} | ${signed(Math.round((perCommit - first) / 1000))} | ${all.storedAs} |`);
    process.stderr.write(`[bench:pg-append-cost] ${new Date().toISOString()} ${session.name}: ${thousands(perCommit)} k instructions a commit\n`);
  }
  // A fast shutdown, sent to the server itself (runuser passes no signal on).
  const exited = new Promise((resolve) => server.once('exit', resolve));
  process.kill(postmasterPid(), 'SIGINT');
  await exited;
  return {
    heading: `backend instructions (callgrind) of ${COMMITS} commits a variant, over ${WARM_UP} warm-up ones`,
    rows: ['| variant | backend k instructions a commit | vs the first, k | change set stored |', '| --- | ---: | ---: | --- |', ...rows],
  };
}

/** The newest installed PostgreSQL's server program, which privateCluster runs. */
function serverProgram() {
  const major = readdirSync('/usr/lib/postgresql')
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))[0];
  return `/usr/lib/postgresql/${major}/bin/postgres`;
}

/** Waits until the server started under valgrind accepts connections (minutes, at valgrind's pace). */
async function answering(url, server, log) {
  for (let tries = 0; ; tries++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      if (tries > 600 || server.exitCode !== null) throw new Error(`The cluster did not start under callgrind: ${error.message}\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function thousands(value) {
  return Math.round(value / 1000).toLocaleString('en-US');
}

function signed(value) {
  return `${value >= 0 ? '+' : ''}${value}`;
}
