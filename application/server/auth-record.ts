/** The contents of `remote-auth.json`: a password verifier and the sessions it has granted. */
export interface PasswordVerifier {
  kdf: 'scrypt';
  /** Cost parameters kept with the hash, so a later change of defaults still verifies old files. */
  n: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

export interface Session {
  /** Hash of the bearer, never the bearer itself. */
  bearer_hash: string;
  created_at: string;
  expires_at: string;
}

export interface AuthRecord {
  version: 1;
  verifier: PasswordVerifier;
  sessions: Session[];
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0;
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));

/** The record a file holds, or what is wrong with it (a corrupt file is never half-trusted). */
export function parseAuthRecord(text: string): { record: AuthRecord } | { problem: string } {
  let value: any;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || value.version !== 1) return { problem: 'not a version 1 auth record' };
  const verifier = value.verifier;
  if (!verifier || verifier.kdf !== 'scrypt' || ![verifier.n, verifier.r, verifier.p].every(isCount) || !isText(verifier.salt) || !isText(verifier.hash)) {
    return { problem: 'the password verifier is malformed' };
  }
  if (!Array.isArray(value.sessions)) return { problem: 'sessions is not a list' };
  const bad = value.sessions.findIndex((session: any) => !session || !isText(session.bearer_hash) || !isTime(session.created_at) || !isTime(session.expires_at));
  if (bad >= 0) return { problem: `session ${bad} is malformed` };
  return { record: value as AuthRecord };
}

export function renderAuthRecord(record: AuthRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}
