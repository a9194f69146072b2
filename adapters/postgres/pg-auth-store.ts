import type { Pool } from 'pg';
import { corruptAuthRecord, parseAuthRecord, verifierProblem, type PasswordVerifier, type Session } from '../../application/server/auth-record.js';
import type { AuthRecord } from '../../application/server/auth-record.js';
import type { CredentialStore, SharedAuthStore, SharedSessions, StoredAuth } from '../../application/ports/auth-store.js';
import { PgAuthCache, type AuthChangeSink } from './pg-auth-cache.js';
import { credentialOf, PgCredentialStore, type CredentialRow } from './pg-credential-store.js';
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

/**
 * $1 bearer hashes, $2 credential ids: the sessions and credentials of those still there, in one
 * statement (the bearer checks a process keeps, looked up again together: pg-auth-cache.ts).
 */
const RECHECK = `
  SELECT 'session:' || bearer_hash AS key, created_at, expires_at, credential, NULL AS id, NULL AS name, NULL::json AS agents, NULL::json AS verifier
  FROM taskdag_sessions WHERE bearer_hash = ANY($1::text[])
  UNION ALL
  SELECT 'credential:' || id, created_at, NULL, NULL, id, name, agents, verifier
  FROM taskdag_credentials WHERE id = ANY($2::text[])`;

type RecheckRow = { key: string } & SessionRow & CredentialRow;

const INSERT_SESSION = 'INSERT INTO taskdag_sessions (bearer_hash, created_at, expires_at, credential) VALUES ($1, $2, $3, $4)';
const sessionValues = (session: Session) => [session.bearer_hash, session.created_at, session.expires_at, session.credential ?? null];

/**
 * The password verifier and the sessions in the database, shared by every server process on it
 * (docs/scaling.md): a bearer granted by one process works on all, and a rotation (a verifier
 * installed with no sessions) ends every session on every process, as soon as each hears of it
 * (pg-auth-cache.ts). Only bearer hashes are stored.
 */
export class PgAuthStore implements SharedAuthStore, SharedSessions {
  readonly location = 'postgresql:taskdag_auth';
  readonly shared: SharedSessions = this;
  /** In the database too: every process sees a credential added at once, and one removed as soon as it hears of it. */
  readonly credentials: CredentialStore;
  /** Where the revision listener reports changes to sessions and credentials (entrypoints/server/store-backend.ts). */
  readonly changes: AuthChangeSink;

  constructor(
    private readonly pool: Pool,
    private readonly cache = new PgAuthCache(),
  ) {
    this.credentials = new PgCredentialStore(pool, cache);
    this.changes = cache;
    cache.recheckWith((keys) => this.recheck(keys));
  }

  async load(): Promise<StoredAuth> {
    try {
      const auth = (await queryFresh<{ verifier: PasswordVerifier; generation: string }>(this.pool, 'SELECT verifier, generation FROM taskdag_auth', [])).rows[0];
      if (!auth) return { kind: 'absent' };
      const sessions = await this.pool.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM taskdag_sessions ORDER BY created_at`);
      const record = { version: 1, generation: Number(auth.generation), verifier: auth.verifier, sessions: sessions.rows.map(sessionOf) };
      const parsed = parseAuthRecord(JSON.stringify(record));
      return 'record' in parsed ? { kind: 'valid', record: parsed.record } : { kind: 'corrupt', problem: parsed.problem };
    } catch (error) {
      throw databaseError(error);
    }
  }

  /**
   * The new verifier and no sessions, in one transaction, only over the record `replacing` was:
   * the row's generation is the compare-and-set (two processes rotating at once: one wins, the
   * other finds the winner's record when it loads again).
   */
  install(record: AuthRecord, replacing: AuthRecord | null): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const verifier = JSON.stringify(record.verifier);
      const written = replacing
        ? await client.query('UPDATE taskdag_auth SET verifier = $1, generation = $2 WHERE generation = $3', [verifier, record.generation ?? 0, replacing.generation ?? 0])
        : await client.query('INSERT INTO taskdag_auth (singleton, verifier, generation) VALUES (true, $1, $2) ON CONFLICT (singleton) DO NOTHING', [verifier, record.generation ?? 0]);
      if (written.rowCount !== 1) return false;
      await client.query('DELETE FROM taskdag_sessions');
      return true;
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

  /** The sessions and credentials of `keys` (`session:<hash>`, `credential:<id>`) still in the database, in one statement. */
  private async recheck(keys: string[]): Promise<Map<string, unknown>> {
    const named = (prefix: string) => keys.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
    const rows = (await queryFresh<RecheckRow>(this.pool, RECHECK, [named('session:'), named('credential:')])).rows;
    return new Map(rows.map((row) => [row.key, row.key.startsWith('session:') ? sessionOf({ ...row, bearer_hash: row.key.slice('session:'.length) }) : credentialOf(row)]));
  }

  find(bearerHash: string): Promise<Session | null> {
    return this.cache.get(`session:${bearerHash}`, async () => {
      const row = (await queryFresh<SessionRow>(this.pool, `SELECT ${SESSION_COLUMNS} FROM taskdag_sessions WHERE bearer_hash = $1`, [bearerHash])).rows[0];
      return row ? sessionOf(row) : null;
    });
  }
}
