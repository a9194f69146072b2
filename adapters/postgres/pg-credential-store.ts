import type { Pool } from 'pg';
import type { CredentialStore } from '../../application/ports/auth-store.js';
import type { Credential } from '../../application/server/credential-record.js';
import type { PgAuthCache } from './pg-auth-cache.js';
import { queryFresh, withTransaction } from './pg-pool.js';

export interface CredentialRow {
  id: string;
  name: string;
  agents: string[];
  verifier: Credential['verifier'];
  created_at: Date;
}

export const CREDENTIAL_COLUMNS = 'id, name, agents, verifier, created_at';

export const credentialOf = (row: CredentialRow): Credential => ({ id: row.id, name: row.name, agents: row.agents, verifier: row.verifier, created_at: row.created_at.toISOString() });

/**
 * The bound credentials in the database (schema 3), shared by every server process on it: a
 * credential added by the operator counts at once everywhere, one removed as soon as each process
 * hears of it (pg-auth-cache.ts), and removing one removes its sessions in the same statement
 * (ON DELETE CASCADE).
 */
export class PgCredentialStore implements CredentialStore {
  constructor(
    private readonly pool: Pool,
    private readonly cache?: PgAuthCache,
  ) {}

  async list(): Promise<Credential[]> {
    return (await queryFresh<CredentialRow>(this.pool, `SELECT ${CREDENTIAL_COLUMNS} FROM taskdag_credentials ORDER BY created_at, name`, [])).rows.map(credentialOf);
  }

  find(name: string): Promise<Credential | null> {
    return this.credentialWhere('name', name);
  }

  /** What every bearer check of a bound session asks: kept as a session is, when the store has a cache. */
  findById(id: string): Promise<Credential | null> {
    return this.cache ? this.cache.get(`credential:${id}`, () => this.credentialWhere('id', id)) : this.credentialWhere('id', id);
  }

  /** Writes are never retried (a retry of an insert that did commit would answer "taken"): a lost connection fails the command. */
  add(credential: Credential): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const inserted = await client.query(
        'INSERT INTO taskdag_credentials (id, name, agents, verifier, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING',
        [credential.id, credential.name, JSON.stringify(credential.agents), JSON.stringify(credential.verifier), credential.created_at],
      );
      return inserted.rowCount === 1;
    });
  }

  /** Its sessions go in the same statement (ON DELETE CASCADE): no process accepts them once it has heard of it. */
  remove(name: string): Promise<boolean> {
    return withTransaction(this.pool, async (client) => (await client.query('DELETE FROM taskdag_credentials WHERE name = $1', [name])).rowCount === 1);
  }

  private async credentialWhere(column: 'name' | 'id', value: string): Promise<Credential | null> {
    const row = (await queryFresh<CredentialRow>(this.pool, `SELECT ${CREDENTIAL_COLUMNS} FROM taskdag_credentials WHERE ${column} = $1`, [value])).rows[0];
    return row ? credentialOf(row) : null;
  }
}
