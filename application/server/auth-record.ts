import { DomainError } from '../../domain/errors.js';
import { SERVER_FILE_NAMES } from './server-config.js';

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
  /** The id of the bound credential that logged in (docs/operating.md, "Identities"); absent for the shared password. */
  credential?: string;
}

export interface AuthRecord {
  version: 1;
  /** The password generation that set this verifier (server-env.ts); 0 in records from before it. */
  generation?: number;
  verifier: PasswordVerifier;
  sessions: Session[];
}

/** Bytes of a verifier's hash: what ScryptPasswordHasher derives; a shorter one would be easier to match. */
export const VERIFIER_HASH_BYTES = 64;
/** The fewest salt bytes a verifier may have (ScryptPasswordHasher makes 16). */
export const VERIFIER_MIN_SALT_BYTES = 16;
/**
 * Bounds on the stored scrypt cost, so a damaged record can neither make scrypt throw (N must be
 * a power of two) nor make each login take gigabytes or hours: at most 256 MiB (128·N·r bytes)
 * and 16 parallel passes. The default cost (N=2^15, r=8, p=1) is well inside.
 */
export const SCRYPT_LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16, maxMemoryBytes: 256 * 1024 * 1024 };

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value));
const isBetween = (value: unknown, min: number, max: number): value is number => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
/** Bytes of canonical unpadded base64url text, or null when it is not that. */
function base64urlBytes(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]*$/.test(value) || value.length % 4 === 1) return null;
  return Math.floor((value.length * 3) / 4);
}

/** What makes a stored verifier unusable, or null. */
export function verifierProblem(verifier: any): string | null {
  if (typeof verifier !== 'object' || verifier === null || verifier.kdf !== 'scrypt') return 'the password verifier is malformed';
  const { n, r, p } = verifier;
  const costOk =
    isBetween(n, 2, SCRYPT_LIMITS.maxN) && (n & (n - 1)) === 0 && isBetween(r, 1, SCRYPT_LIMITS.maxR) && isBetween(p, 1, SCRYPT_LIMITS.maxP) && 128 * n * r <= SCRYPT_LIMITS.maxMemoryBytes;
  if (!costOk) return `the scrypt cost (N=${String(n)}, r=${String(r)}, p=${String(p)}) is out of range`;
  const salt = base64urlBytes(verifier.salt);
  if (salt === null || salt < VERIFIER_MIN_SALT_BYTES) return `the salt is not base64url of at least ${VERIFIER_MIN_SALT_BYTES} bytes`;
  if (base64urlBytes(verifier.hash) !== VERIFIER_HASH_BYTES) return `the hash is not base64url of ${VERIFIER_HASH_BYTES} bytes`;
  return null;
}

/** The record a file holds, or what is wrong with it (a corrupt file is never half-trusted). */
export function parseAuthRecord(text: string): { record: AuthRecord } | { problem: string } {
  let value: any;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || value.version !== 1) return { problem: 'not a version 1 auth record' };
  if (value.generation !== undefined && !isBetween(value.generation, 0, Number.MAX_SAFE_INTEGER)) return { problem: 'the password generation is not a whole number' };
  const problem = verifierProblem(value.verifier);
  if (problem) return { problem };
  if (!Array.isArray(value.sessions)) return { problem: 'sessions is not a list' };
  const bad = value.sessions.findIndex(
    (session: any) =>
      !session || !isText(session.bearer_hash) || !isTime(session.created_at) || !isTime(session.expires_at) || !(session.credential === undefined || isText(session.credential)),
  );
  if (bad >= 0) return { problem: `session ${bad} is malformed` };
  return { record: value as AuthRecord };
}

export function renderAuthRecord(record: AuthRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * Spec 5.6, in the error itself: what to do is part of the message and of `details.recovery`.
 * `path` is the auth file, or a `postgresql:` location for the record a database holds.
 */
export function corruptAuthRecord(path: string, problem: string): DomainError {
  const inDatabase = path.startsWith('postgresql:');
  const recovery = corruptAuthRecovery(path);
  const what = inDatabase ? 'The auth record in the database' : SERVER_FILE_NAMES.auth;
  return new DomainError('STORAGE_ERROR', `${what} is corrupt (${problem}). ${recovery}`, {
    cause: 'EINVALID',
    ...(inDatabase ? {} : { file: SERVER_FILE_NAMES.auth }),
    path,
    problem,
    recovery,
  });
}

/** What an operator does about a corrupt auth record at `path`: the server's error and the preflight say it alike. */
export function corruptAuthRecovery(path: string): string {
  if (path.startsWith('postgresql:')) {
    return 'Stop every server process, back the database up, delete the auth rows (psql: DELETE FROM taskdag_sessions; DELETE FROM taskdag_auth;), and start one server with the intended password: it creates fresh auth, leaves every project untouched, and every client logs in again.';
  }
  return `Stop the service, back up ${path}, move only that file aside (e.g. mv ${path} ${path}.corrupt), and start the server again with the intended password: it creates fresh auth, leaves every project untouched, and every client logs in again.`;
}
