import type { Pool, PoolClient } from 'pg';
import { DomainError } from '../../domain/errors.js';

/**
 * node-postgres, loaded on first use: only a server (or `server doctor`) configured for
 * PostgreSQL pays for it; the bundles leave it in node_modules (scripts/build.mjs).
 */
function pg(): typeof import('pg') {
  return require('pg') as typeof import('pg');
}

/** One pool a process (as node-postgres advises); the connection string never reaches an error or a log. */
export function openPool(connectionString: string, max = 10, connectionTimeoutMillis = 30_000): Pool {
  const pool = new (pg().Pool)({ connectionString, max, connectionTimeoutMillis, application_name: 'taskdag' });
  // An idle client that loses its connection is dropped by the pool; without a listener it would crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * How long a dedicated client's TCP connection sits idle before the kernel probes it; Node then
 * sends up to 10 probes a second apart (libuv), so a connection cut without a word (the
 * database's host gone, a firewall that dropped its state) is known within about 15 s, by the
 * kernels alone: no statement, no work for the database's backend. The listening connection
 * hears nothing while it is idle, so without probes the notifications sent while it was cut
 * would be missed with nothing to show it (pg-auth-cache.ts). A Unix socket has no probes, and
 * cannot be cut silently.
 */
const DEDICATED_KEEPALIVE_IDLE_MS = 5_000;

/** A dedicated client outside the pool (LISTEN keeps its connection for the process's lifetime). */
export function openClient(connectionString: string): import('pg').Client {
  return new (pg().Client)({ connectionString, application_name: 'taskdag-listen', keepAlive: true, keepAliveInitialDelayMillis: DEDICATED_KEEPALIVE_IDLE_MS });
}

/**
 * Pooled connections the database may have ended while they sat idle (a restart, a failover):
 * each fails at its first statement, before anything ran, and is then discarded, so a statement
 * is tried on up to this many connections. A database that is down fails at connect, at once.
 */
const STALE_CONNECTIONS = 32;

export interface TransactionOptions {
  /** The statement that opens the transaction (a read-only snapshot, say). */
  begin?: string;
  /**
   * `work` has no effect outside its transaction, so when the connection is lost before COMMIT is
   * sent (PostgreSQL has then rolled everything back) it runs again, whole, on a fresh connection.
   * Otherwise only a loss at BEGIN is tried again.
   */
  repeatable?: boolean;
}

/**
 * Runs `work` in one transaction on one pooled client: committed when it resolves, rolled back
 * when it throws. A connection lost before anything could commit is discarded and the next one
 * tried (see TransactionOptions); one lost at COMMIT is never tried again: the change may have
 * been applied, and the STORAGE_ERROR says so (`details.outcome: "unknown"`).
 */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await connect(pool);
    const lost = watchForLoss(client);
    const retry = (error: unknown) => attempt < STALE_CONNECTIONS && isConnectionLost(error);
    try {
      await client.query(options.begin ?? 'BEGIN');
    } catch (error) {
      client.release(true);
      lost.stop();
      if (retry(error)) continue;
      throw databaseError(error);
    }
    let broken = false;
    let result: T;
    try {
      result = await work(client);
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // The connection is gone: the server rolls back by itself; the client must not be reused.
        broken = true;
      }
      client.release(broken || lost.happened());
      lost.stop();
      if (options.repeatable && retry(error)) continue;
      throw databaseError(error);
    }
    try {
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = isConnectionLost(error);
      throw broken ? commitOutcomeUnknown(error) : databaseError(error);
    } finally {
      client.release(broken || lost.happened());
      lost.stop();
    }
  }
}

/**
 * One pooled connection kept checked out while statements follow one another (a project's
 * commits under load), so that each is written to its socket as it is asked for. `pool.query`
 * hands its connection over on a later tick, after every callback already queued: a group
 * commit's INSERT then waited for the answers of the group before it to be written (BENCHMARKS.md,
 * "twelfth pass"). The connection goes back to the pool once a turn of the event loop passes with
 * nothing more to send, or at once when someone waits for a connection; one that failed is
 * discarded. One statement at a time: the caller sends the next once the last has answered.
 * Errors are the driver's own, as `pool.query` gives them.
 */
export class HeldConnection {
  private client: PoolClient | null = null;
  private loss: { happened(): boolean; stop(): void } | null = null;
  private giveBack: NodeJS.Immediate | null = null;

  constructor(private readonly pool: Pool) {}

  async query<R extends import('pg').QueryResultRow>(config: import('pg').QueryConfig): Promise<import('pg').QueryResult<R>> {
    if (this.giveBack) clearImmediate(this.giveBack);
    this.giveBack = null;
    if (this.client && this.loss!.happened()) this.release(true);
    const client = this.client ?? (await this.checkOut());
    try {
      return await client.query<R>(config);
    } catch (error) {
      if (isConnectionLost(error)) this.release(true);
      throw error;
    } finally {
      this.giveBackWhenIdle();
    }
  }

  private async checkOut(): Promise<PoolClient> {
    const client = await this.pool.connect();
    this.client = client;
    this.loss = watchForLoss(client);
    return client;
  }

  private giveBackWhenIdle(): void {
    if (!this.client) return;
    if (this.pool.waitingCount > 0) return this.release(false);
    this.giveBack = setImmediate(() => {
      this.giveBack = null;
      this.release(false);
    });
  }

  private release(broken: boolean): void {
    if (!this.client) return;
    this.loss!.stop();
    this.client.release(broken || this.loss!.happened());
    this.client = null;
    this.loss = null;
  }
}

/**
 * A statement sent on every commit or read: each connection prepares it once, by its name, and
 * then only binds its values, so the database parses and plans it once a connection, not once a
 * call.
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** One statement on the pool (a read), tried again on another connection when its connection had been ended while idle. */
export async function queryFresh<R extends import('pg').QueryResultRow>(pool: Pool, sql: string | PreparedStatement, values: unknown[]): Promise<import('pg').QueryResult<R>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (typeof sql === 'string' ? pool.query<R>(sql, values) : pool.query<R>({ ...sql, values }));
    } catch (error) {
      if (attempt >= STALE_CONNECTIONS || !isConnectionLost(error)) throw databaseError(error);
    }
  }
}

/**
 * A checked-out client whose connection drops between queries emits 'error'; without a listener
 * that would end the process. The failure then surfaces on the next query, and the client is
 * destroyed on release.
 */
function watchForLoss(client: PoolClient): { happened(): boolean; stop(): void } {
  let happened = false;
  const listener = () => (happened = true);
  client.on('error', listener);
  return { happened: () => happened, stop: () => void client.off('error', listener) };
}

/**
 * The server ended the session, or the socket went. node-postgres reports a socket that closed
 * under a query, and any later query on that client, with no code: only its words tell them.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code.startsWith('08') || /^57P0[123]$/.test(code) || code === 'ECONNRESET' || code === 'EPIPE';
  return error instanceof Error && /Connection terminated|connection error and is not queryable/i.test(error.message);
}

/** The SQLSTATE class PostgreSQL gives a connection that failed, for a loss the driver reports without a code. */
const CONNECTION_FAILURE = '08006';

/** COMMIT was sent and the connection went before its answer: the server may or may not have committed. */
export function commitOutcomeUnknown(error: unknown): DomainError {
  const cause = codeOf(error) ?? CONNECTION_FAILURE;
  return new DomainError(
    'STORAGE_ERROR',
    `The database connection was lost while committing (${cause}): the change may or may not have been applied; read before trying it again`,
    { cause, outcome: 'unknown' },
  );
}

export const codeOf = (error: unknown): string | null => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
};

async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw databaseError(error);
  }
}

/**
 * A database failure as STORAGE_ERROR, with the SQLSTATE (or the socket's errno) as its cause.
 * A SQL error keeps PostgreSQL's message; a connection failure says only its errno, since the
 * driver's words name the database's host or socket, which an HTTP body must not show
 * (`server doctor` reports the whole reason to the operator).
 */
export function databaseError(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const code = codeOf(error);
  if (code === null) {
    if (isConnectionLost(error)) return new DomainError('STORAGE_ERROR', `The database connection was lost (${CONNECTION_FAILURE}): try again`, { cause: CONNECTION_FAILURE });
    // The pool's own timeout (every connection busy, or the database not answering): no code either.
    if (error instanceof Error && /timeout exceeded when trying to connect|connection timeout/i.test(error.message)) {
      return new DomainError('STORAGE_ERROR', 'No database connection within the timeout (ETIMEDOUT): run `taskdag server doctor` on the server', { cause: 'ETIMEDOUT' });
    }
    return error;
  }
  // PostgreSQL's own errors carry a severity; anything else is the socket's.
  if (typeof (error as { severity?: unknown }).severity !== 'string') return new DomainError('STORAGE_ERROR', `The database cannot be reached (${code}): run \`taskdag server doctor\` on the server`, { cause: code });
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('STORAGE_ERROR', `The database failed: ${reason}`, { cause: code });
}
