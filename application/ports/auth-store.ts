import type { AuthRecord, PasswordVerifier, Session } from '../server/auth-record.js';

export type StoredAuth = { kind: 'absent' } | { kind: 'valid'; record: AuthRecord } | { kind: 'corrupt'; problem: string };

/** `remote-auth.json` in the state home: the password verifier and the session list (spec 2.6). */
export interface AuthStore {
  /** Where the file is, for the operator's error messages (never for HTTP bodies). */
  readonly location: string;
  load(): Promise<StoredAuth>;
  /** Replaces the record durably: when this resolves, a crash cannot lose it. */
  save(record: AuthRecord): Promise<void>;
  /** Present when several server processes share the store (a database): sessions live there, not in one process's memory. */
  readonly shared?: SharedSessions;
}

/**
 * Sessions as every process sharing a store sees them at once: a bearer granted by one process
 * works on all, and a rotation by any (which saves a record without sessions) ends them all.
 */
export interface SharedSessions {
  /** The verifier stored now (another process may have rotated the password since this one started). */
  verifier(): Promise<PasswordVerifier | null>;
  /** Adds a session durably, dropping expired ones and the oldest past `max`. */
  add(session: Session, now: string, max: number): Promise<void>;
  find(bearerHash: string): Promise<Session | null>;
}
