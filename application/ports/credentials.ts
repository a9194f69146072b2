import type { PasswordVerifier } from '../server/auth-record.js';

/** A slow key-derivation function for the password (it may be an operator's choice, spec 5.2). */
export interface PasswordHasher {
  derive(password: string): Promise<PasswordVerifier>;
  /** Compares in constant time. */
  matches(password: string, verifier: PasswordVerifier): Promise<boolean>;
}

/** Bearers: 32 random bytes, of which only a hash is ever stored. */
export interface BearerTokens {
  mint(): { bearer: string; hash: string };
  /** The stored form of a presented bearer; null when it cannot be one of ours. */
  hashOf(bearer: string): string | null;
}
