import type { OpenedCredentials } from '../../application/ports/credential-admin.js';
import { storeOf, type ServerConfig } from '../../application/server/server-config.js';
import { DATABASE_URL_KEY, databaseUrlProblem } from '../../application/server/server-env.js';
import { DomainError } from '../../domain/errors.js';
import { FsCredentialStore } from '../../adapters/server/fs-credential-store.js';
import { ScryptPasswordHasher } from '../../adapters/server/scrypt-password-hasher.js';
import { PgCredentialStore } from '../../adapters/postgres/pg-credential-store.js';
import { openPool } from '../../adapters/postgres/pg-pool.js';
import { migrate } from '../../adapters/postgres/pg-schema.js';

/**
 * The credential store of a setup, for the operator's `server credential` commands: the file in
 * its state home, or its PostgreSQL database, brought to the current schema first exactly as
 * `server run` would (migrations only add). A running server reads either afresh on every use.
 */
export async function openCredentials(config: ServerConfig, databaseUrl: string | undefined): Promise<OpenedCredentials> {
  const hasher = new ScryptPasswordHasher();
  if (storeOf(config) === 'files') return { store: new FsCredentialStore(config.stateHome), hasher, close: async () => undefined };
  const problem = databaseUrlProblem(databaseUrl);
  if (problem) throw new DomainError('MISSING_FIELD', `${problem}: add it to server.env (docs/scaling.md)`, { field: DATABASE_URL_KEY, source: 'env-file' });
  const pool = openPool(databaseUrl!, 2);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { store: new PgCredentialStore(pool), hasher, close: () => pool.end() };
}
