import type { DatabaseProbe, DatabaseProbeResult } from '../../application/ports/database-probe.js';
import { openPool } from './pg-pool.js';
import { schemaVersion, SCHEMA_VERSION } from './pg-schema.js';

const CONNECT_TIMEOUT_MS = 5_000;

/** One short connection through node-postgres; the reason of a failure is its SQLSTATE or errno and message, never the connection string. */
export class PgDatabaseProbe implements DatabaseProbe {
  async probe(connectionString: string): Promise<DatabaseProbeResult> {
    let pool: ReturnType<typeof openPool>;
    try {
      pool = openPool(connectionString, 1, CONNECT_TIMEOUT_MS);
    } catch (error) {
      return { reachable: false, reason: `the connection string does not parse (${(error as Error).name})` };
    }
    try {
      return { reachable: true, schemaVersion: await schemaVersion(pool), supportedVersion: SCHEMA_VERSION, credentials: await credentialCount(pool), auth: await storedAuth(pool) };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const message = redact((error as Error).message ?? String(error), connectionString);
      return { reachable: false, reason: typeof code === 'string' ? `${code}: ${message}` : message };
    } finally {
      await pool.end().catch(() => undefined);
    }
  }
}

/** Bound credentials in the database; null while its schema has no table for them. */
async function credentialCount(pool: ReturnType<typeof openPool>): Promise<number | null> {
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('taskdag_credentials') IS NOT NULL AS exists");
  if (!table.rows[0]!.exists) return null;
  return Number((await pool.query<{ count: string }>('SELECT count(*) AS count FROM taskdag_credentials')).rows[0]!.count);
}

/** The verifier row, as `server run` would find it; a table from before the generation column counts 0, as its migration sets. */
async function storedAuth(pool: ReturnType<typeof openPool>): Promise<{ verifier: unknown; generation: number } | null> {
  const shape = await pool.query<{ table: boolean; generation: boolean }>(
    "SELECT to_regclass('taskdag_auth') IS NOT NULL AS table, EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('taskdag_auth') AND attname = 'generation' AND NOT attisdropped) AS generation",
  );
  const { table, generation } = shape.rows[0]!;
  if (!table) return null;
  const row = (await pool.query<{ verifier: unknown; generation: string }>(`SELECT verifier, ${generation ? 'generation' : '0'} AS generation FROM taskdag_auth`)).rows[0];
  return row ? { verifier: row.verifier, generation: Number(row.generation) } : null;
}

/** Whatever a driver message echoes of the connection string (its password above all) is cut out. */
function redact(message: string, connectionString: string): string {
  let redacted = message.split(connectionString).join('<connection string>');
  try {
    const password = decodeURIComponent(new URL(connectionString).password);
    if (password !== '') redacted = redacted.split(password).join('<password>');
  } catch {
    // Not a URL: nothing more to cut.
  }
  return redacted;
}
