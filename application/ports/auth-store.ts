import type { AuthRecord } from '../server/auth-record.js';

export type StoredAuth = { kind: 'absent' } | { kind: 'valid'; record: AuthRecord } | { kind: 'corrupt'; problem: string };

/** `remote-auth.json` in the state home: the password verifier and the session list (spec 2.6). */
export interface AuthStore {
  /** Where the file is, for the operator's error messages (never for HTTP bodies). */
  readonly location: string;
  load(): Promise<StoredAuth>;
  /** Replaces the record durably: when this resolves, a crash cannot lose it. */
  save(record: AuthRecord): Promise<void>;
}
