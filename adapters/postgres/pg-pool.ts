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

/** A dedicated client outside the pool (LISTEN keeps its connection for the process's lifetime). */
export function openClient(connectionString: string): import('pg').Client {
  return new (pg().Client)({ connectionString, application_name: 'taskdag-listen' });
}

/** Runs `work` in one transaction on one pooled client: committed when it resolves, rolled back when it throws. */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await connect(pool);
  let broken: unknown = undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollback) {
      // The connection is gone: the server rolls back by itself; the client must not be reused.
      broken = rollback;
    }
    throw databaseError(error);
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

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
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  // PostgreSQL's own errors carry a severity; anything else is the socket's.
  if (typeof (error as { severity?: unknown }).severity !== 'string') return new DomainError('STORAGE_ERROR', `The database cannot be reached (${code}): run \`taskdag server doctor\` on the server`, { cause: code });
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('STORAGE_ERROR', `The database failed: ${reason}`, { cause: code });
}
