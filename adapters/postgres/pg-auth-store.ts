import type { Pool } from 'pg';
import { corruptAuthRecord, parseAuthRecord, verifierProblem, type PasswordVerifier, type Session } from '../../application/server/auth-record.js';
import type { AuthRecord } from '../../application/server/auth-record.js';
import type { AuthStore, CredentialStore, SharedSessions, StoredAuth } from '../../application/ports/auth-store.js';
import { PgCredentialStore } from './pg-credential-store.js';
import { databaseError, queryFresh, withTransaction } from './pg-pool.js';

interface SessionRow {
  bearer_hash: string;
  created_at: Date;
  expires_at: Date;
  credential: string | null;
}

const SESSION_COLUMNS = 'bearer_hash, created_at, expires_at, credential';

const sessionOf = (row: SessionRow): Session => ({
  bearer_hash: row.bearer_hash,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at.toISOString(),
  ...(row.credential === null ? {} : { credential: row.credential }),
});

const INSERT_SESSION = 'INSERT INTO taskdag_sessions (bearer_hash, created_at, expires_at, credential) VALUES ($1, $2, $3, $4)';
const sessionValues = (session: Session) => [session.bearer_hash, session.created_at, session.expires_at, session.credential ?? null];

/**
 * The password verifier and the sessions in the database, shared by every server process on it
 * (docs/scaling.md): a bearer granted by one process works on all, and a rotation (a record
 * saved with no sessions) ends every session at once. Only bearer hashes are stored.
 */
export class PgAuthStore implements AuthStore, SharedSessions {
  readonly location = 'postgresql:taskdag_auth';
  readonly shared: SharedSessions = this;
  /** In the database too: every process sees a credential added or removed at once. */
  readonly credentials: CredentialStore;

  constructor(private readonly pool: Pool) {
    this.credentials = new PgCredentialStore(pool);
  }

  async load(): Promise<StoredAuth> {
    try {
      const verifier = await this.verifier();
      if (!verifier) return { kind: 'absent' };
      const sessions = await this.pool.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM taskdag_sessions ORDER BY created_at`);
      const parsed = parseAuthRecord(JSON.stringify({ version: 1, verifier, sessions: sessions.rows.map(sessionOf) }));
      return 'record' in parsed ? { kind: 'valid', record: parsed.record } : { kind: 'corrupt', problem: parsed.problem };
    } catch (error) {
      throw databaseError(error);
    }
  }

  /** The verifier and exactly the record's sessions, in one transaction. */
  save(record: AuthRecord): Promise<void> {
    return withTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO taskdag_auth (singleton, verifier) VALUES (true, $1) ON CONFLICT (singleton) DO UPDATE SET verifier = EXCLUDED.verifier', [
        JSON.stringify(record.verifier),
      ]);
      await client.query('DELETE FROM taskdag_sessions');
      for (const session of record.sessions) await client.query(INSERT_SESSION, sessionValues(session));
    });
  }

  /** Checked as at start: a row damaged since must not reach scrypt (it would throw, or hash for hours). */
  async verifier(): Promise<PasswordVerifier | null> {
    const verifier = (await queryFresh<{ verifier: PasswordVerifier }>(this.pool, 'SELECT verifier FROM taskdag_auth', [])).rows[0]?.verifier ?? null;
    const problem = verifier && verifierProblem(verifier);
    if (problem) throw corruptAuthRecord(this.location, problem);
    return verifier;
  }

  add(session: Session, now: string, max: number): Promise<void> {
    return withTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM taskdag_sessions WHERE expires_at <= $1', [now]);
      await client.query(INSERT_SESSION, sessionValues(session));
      await client.query('DELETE FROM taskdag_sessions WHERE bearer_hash IN (SELECT bearer_hash FROM taskdag_sessions ORDER BY created_at DESC OFFSET $1)', [max]);
    });
  }

  async find(bearerHash: string): Promise<Session | null> {
    const row = (await queryFresh<SessionRow>(this.pool, `SELECT ${SESSION_COLUMNS} FROM taskdag_sessions WHERE bearer_hash = $1`, [bearerHash])).rows[0];
    return row ? sessionOf(row) : null;
  }
}
