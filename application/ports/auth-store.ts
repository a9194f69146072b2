import type { AuthRecord, PasswordVerifier, Session } from '../server/auth-record.js';
import type { Credential } from '../server/credential-record.js';

export type StoredAuth = { kind: 'absent' } | { kind: 'valid'; record: AuthRecord } | { kind: 'corrupt'; problem: string };

/**
 * The password verifier and the sessions: `remote-auth.json` in one server's state home (spec
 * 2.6), or the rows of a database every server process shares (docs/scaling.md).
 */
export type AuthStore = OwnAuthStore | SharedAuthStore;

interface AuthStoreBase {
  /** Where the record is, for the operator's error messages (never for HTTP bodies). */
  readonly location: string;
  load(): Promise<StoredAuth>;
  /**
   * Writes a record with a new verifier (a first start, or a rotation) durably, unless another
   * process wrote one since `replacing` (the record loaded; null when there was none): then it
   * writes nothing and answers false, and the caller decides again on what is stored now.
   */
  install(record: AuthRecord, replacing: AuthRecord | null): Promise<boolean>;
  /** The bound credentials, read afresh on every use: an operator adds or removes them while the server runs. */
  readonly credentials: CredentialStore;
}

/** One server process owns the record (under its service lock): sessions are saved with it. */
export interface OwnAuthStore extends AuthStoreBase {
  readonly shared?: undefined;
  /** Replaces the record durably: when this resolves, a crash cannot lose it. */
  save(record: AuthRecord): Promise<void>;
}

/** Several server processes share the record (a database): sessions live there, not in one process's memory. */
export interface SharedAuthStore extends AuthStoreBase {
  readonly shared: SharedSessions;
}

/**
 * The bound credentials (docs/operating.md, "Identities"), written only by the operator's
 * `server credential` commands and read by the server at every login and every bearer check.
 */
export interface CredentialStore {
  list(): Promise<Credential[]>;
  find(name: string): Promise<Credential | null>;
  findById(id: string): Promise<Credential | null>;
  /** Adds it durably; false (and nothing written) when the name is taken. */
  add(credential: Credential): Promise<boolean>;
  /** Removes it durably, and with it every session it opened; false when there was none. */
  remove(name: string): Promise<boolean>;
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
