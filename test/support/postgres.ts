import { accessSync, chownSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { ensureCommand } from './debian-package.js';

/** Where Debian's postgresql packages put each major version's server programs. */
const VERSIONS_DIR = '/usr/lib/postgresql';
/** The socket file is private to the cluster's directory, so every cluster can use the default port. */
const PORT = 5432;
const SUPERUSER = 'taskdag';

/** A private PostgreSQL cluster: its own data directory and Unix socket, trust auth, nothing on TCP. */
export interface TestCluster {
  /** The directory holding the data and the socket. */
  dir: string;
  /**
   * A connection string to `database`, as `server.env` holds one. It carries a password the
   * cluster never asks for (trust auth), so tests can check that it appears nowhere.
   */
  url(database: string): string;
  /** Runs SQL as the superuser in `database` (psql), for setting up and inspecting. */
  sql(database: string, statement: string): string;
  createDatabase(name: string): string;
  /**
   * A stop then a start: every connection is ended, and the cluster answers again once this
   * resolves. `immediate` is a crash (sessions cut with no goodbye), `fast` an orderly restart.
   */
  restart(mode: StopMode): Promise<void>;
  /** `pg_ctl stop` (`start` again later): what a database outage looks like to a client. */
  stop(mode: StopMode): Promise<void>;
  start(): Promise<void>;
}

export type StopMode = 'fast' | 'immediate';

export const CLUSTER_PASSWORD = 'pw-never-shown-4cf1';

let cluster: TestCluster | null = null;

/**
 * The test process's cluster, started on first use (installing Debian's postgresql when missing)
 * and stopped when the process exits. Tests that restart or stop a cluster take one of their own
 * (`privateCluster`), so no other suite's connections are cut.
 */
export function testPostgres(): TestCluster {
  cluster ??= privateCluster();
  return cluster;
}

/**
 * A new cluster of its own, with `settings` (`name=value`) on top of the tests' own. As root,
 * initdb and the server run as the package's `postgres` user, which owns the cluster's directory.
 */
export function privateCluster(settings: string[] = []): TestCluster {
  const bin = serverPrograms();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-pg-'));
  const asOwner = ownerRunner(dir);
  const data = path.join(dir, 'data');
  asOwner.now(path.join(bin, 'initdb'), ['-D', data, '-U', SUPERUSER, '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const options = [`-k ${dir} -p ${PORT} -c listen_addresses= -c max_connections=200`, ...settings.map((setting) => `-c ${setting}`)].join(' ');
  const pgCtl = path.join(bin, 'pg_ctl');
  const startArgs = ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start'];
  const stop = (mode: StopMode) => asOwner.later(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  const start = () => asOwner.later(pgCtl, startArgs);
  asOwner.now(pgCtl, startArgs);
  process.once('exit', () => {
    try {
      asOwner.now(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already stopped by its test.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const psql = (database: string, statement: string) =>
    asOwner.now(path.join(bin, 'psql'), ['-h', dir, '-p', String(PORT), '-U', SUPERUSER, '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', statement]);
  const url = (database: string) => `postgresql://${SUPERUSER}:${CLUSTER_PASSWORD}@${encodeURIComponent(dir)}:${PORT}/${database}`;
  return {
    dir,
    url,
    sql: psql,
    createDatabase(name) {
      psql('postgres', `CREATE DATABASE "${name}"`);
      return url(name);
    },
    stop,
    start,
    // Not `pg_ctl restart`, which takes no log file: the server would hold the pipe of its output.
    restart: (mode) => stop(mode).then(start),
  };
}

/**
 * The newest installed PostgreSQL's program directory (with initdb and pg_ctl), installing
 * Debian's postgresql when missing: its postgresql-common puts pg_ctlcluster on PATH, while
 * initdb and pg_ctl stay in /usr/lib/postgresql/<major>/bin.
 */
function serverPrograms(): string {
  ensureCommand('pg_ctlcluster', 'postgresql');
  const majors = readdirSync(VERSIONS_DIR)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  const bin = majors.map((major) => path.join(VERSIONS_DIR, major, 'bin')).find(hasServerPrograms);
  if (!bin) throw new Error(`No PostgreSQL with initdb and pg_ctl under ${VERSIONS_DIR}: install Debian's postgresql package`);
  return bin;
}

function hasServerPrograms(bin: string): boolean {
  try {
    for (const program of ['initdb', 'pg_ctl']) accessSync(path.join(bin, program), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let databases = 0;

/** A fresh, empty database on the test cluster: its connection string. */
export function freshDatabase(): string {
  const pg = testPostgres();
  return pg.createDatabase(`t${process.pid}_${++databases}`);
}

/**
 * Runs a program as the owner of `dir` (the `postgres` user when we are root: initdb refuses
 * root, else ourselves): at once, or in the background so the test's requests go on meanwhile.
 */
function ownerRunner(dir: string): { now(file: string, args: string[]): string; later(file: string, args: string[]): Promise<void> } {
  let owner = {};
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    owner = { uid, gid, cwd: dir };
  }
  const options = { encoding: 'utf8' as const, timeout: 120_000, ...owner };
  return {
    now: (file, args) => execFileSync(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }),
    later: (file, args) => new Promise((resolve, reject) => execFile(file, args, options, (error) => (error ? reject(error) : resolve()))),
  };
}

/** A migrated fresh database with a pool on it; `close` ends the pool. */
export async function freshPool(): Promise<{ url: string; pool: import('pg').Pool; close(): Promise<void> }> {
  const { openPool } = await import('../../adapters/postgres/pg-pool.js');
  const { migrate } = await import('../../adapters/postgres/pg-schema.js');
  const url = freshDatabase();
  const pool = openPool(url);
  await migrate(pool);
  return { url, pool, close: () => pool.end() };
}

/** Two server processes' stores of project `p` on one database: each has its own pool, so its own cached graph. */
export interface TwoProcesses {
  url: string;
  pools: import('pg').Pool[];
  first: import('../../adapters/postgres/pg-project-store.js').PgProjectStore;
  second: import('../../adapters/postgres/pg-project-store.js').PgProjectStore;
}

/** Before each test: a fresh migrated database, two processes on it, and `seed` run through the first; after it, their pools end. */
export function useTwoProcesses(seed: (first: TwoProcesses['first']) => Promise<void>): TwoProcesses {
  const processes = {} as TwoProcesses;
  beforeEach(async () => {
    const { openPool } = await import('../../adapters/postgres/pg-pool.js');
    const { migrate } = await import('../../adapters/postgres/pg-schema.js');
    const { PgProjectStoreFactory } = await import('../../adapters/postgres/pg-project-store.js');
    const url = freshDatabase();
    const pools = [openPool(url), openPool(url)];
    await migrate(pools[0]!);
    Object.assign(processes, { url, pools, first: new PgProjectStoreFactory(pools[0]!).open('p'), second: new PgProjectStoreFactory(pools[1]!).open('p') });
    await seed(processes.first);
  });
  afterEach(async () => {
    for (const pool of processes.pools) await pool.end();
  });
  return processes;
}

/** Counts the statements a pool sends from now on (each is a round trip), through the pool or its clients. */
export function statementsOf(pool: import('pg').Pool): () => number {
  let count = 0;
  watchStatements(pool, () => {
    count++;
  });
  return () => count;
}

/**
 * Hands `seen` the arguments of each statement a pool sends from now on (its text and values),
 * through the pool or its clients, before it goes; a function `seen` returns is handed what the
 * call returned (its result, when it is a promise).
 */
export function watchStatements(pool: import('pg').Pool, seen: (args: unknown[]) => ((answer: unknown) => void) | void): void {
  const watched = (query: (...args: unknown[]) => unknown) => (...args: unknown[]) => {
    // pool.query sends its statement through a client, with a callback: counted by the pool.
    if (typeof args[args.length - 1] === 'function') return query(...args);
    const answered = seen(args);
    const answer = query(...args);
    answered?.(answer);
    return answer;
  };
  (pool as unknown as { query: unknown }).query = watched(pool.query.bind(pool) as (...args: unknown[]) => unknown);
  // A transaction's client, or a held one (pg-pool.ts HeldConnection), counts each statement.
  const counted = new WeakSet<import('pg').PoolClient>();
  const watch = (client: import('pg').PoolClient) => {
    // A pooled client comes back again: watched once.
    if (counted.has(client)) return;
    counted.add(client);
    (client as unknown as { query: unknown }).query = watched(client.query.bind(client) as (...args: unknown[]) => unknown);
  };
  // The clients checked out already (a held connection kept between commits) and those handed out from now on.
  for (const client of (pool as unknown as { _clients: import('pg').PoolClient[] })._clients) watch(client);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<import('pg').PoolClient>;
  (pool as unknown as { connect: unknown }).connect = (...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return connect().then((client) => (watch(client), client));
  };
}

/** The newest checkpoint of `project` (schema 8: its pieces joined in order), or undefined when it has none. */
export async function newestCheckpointRow(pool: import('pg').Pool, project: string): Promise<{ revision: number; checkpoint: Buffer } | undefined> {
  const sql = `SELECT m.revision::int, string_agg(p.bytes, ''::bytea ORDER BY r.position) AS checkpoint
    FROM taskdag_checkpoint_manifests m JOIN taskdag_checkpoint_piece_refs r USING (project, revision) JOIN taskdag_checkpoint_pieces p USING (project, hash)
    WHERE m.project = $1 GROUP BY m.revision ORDER BY m.revision DESC LIMIT 1`;
  return (await pool.query<{ revision: number; checkpoint: Buffer }>(sql, [project])).rows[0];
}

/** Puts `bytes` in place of the checkpoint of `revision`, as one piece (a test editing the saved checkpoint, as one edits a file). */
export async function replaceCheckpointBytes(pool: import('pg').Pool, project: string, revision: number, bytes: Buffer): Promise<void> {
  await pool.query('INSERT INTO taskdag_checkpoint_pieces (project, hash, bytes) VALUES ($1, sha256($2), $2) ON CONFLICT DO NOTHING', [project, bytes]);
  await pool.query('DELETE FROM taskdag_checkpoint_piece_refs WHERE project = $1 AND revision = $2', [project, revision]);
  await pool.query('INSERT INTO taskdag_checkpoint_piece_refs (project, revision, position, hash) VALUES ($1, $2, 0, sha256($3))', [project, revision, bytes]);
  await pool.query('UPDATE taskdag_checkpoint_manifests SET pieces = 1, bytes = $3 WHERE project = $1 AND revision = $2', [project, revision, bytes.length]);
}

/**
 * A project's rows as the store of schemas 5 to 7 wrote them for a whole state (its writeWhole):
 * the project, the change set its incarnation starts with, and its checkpoint in one row of
 * `taskdag_checkpoints` (`checkpoint`, encoded by the caller). For tests of a migration from those schemas.
 */
export async function writeSchema7Project(pool: import('pg').Pool, project: string, state: import('../../domain/model.js').State, checkpoint: Buffer): Promise<void> {
  const { log, ...graph } = state;
  await pool.query('INSERT INTO taskdag_projects (id, version, fence_generation, revision, incarnation, log_length, edges_revision) VALUES ($1, 1, $2, $3, 1, 0, $3)', [
    project,
    state.fence_generation,
    state.revision,
  ]);
  const start = { revision: state.revision, log, nodes: graph.nodes, notes: [], edges: graph.edges.map((edge) => ({ op: 'add', edge })), initiatives: graph.initiatives };
  await pool.query('INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change) VALUES ($1, 1, -1, $2, $3)', [project, state.revision, JSON.stringify(start)]);
  await pool.query('INSERT INTO taskdag_checkpoints (project, incarnation, revision, checkpoint) VALUES ($1, 1, $2, $3)', [project, state.revision, checkpoint]);
}
