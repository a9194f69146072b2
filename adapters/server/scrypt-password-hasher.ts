import { scrypt, type ScryptOptions } from 'node:crypto';
import nacl from 'tweetnacl';
import { VERIFIER_HASH_BYTES, VERIFIER_MIN_SALT_BYTES, type PasswordVerifier } from '../../application/server/auth-record.js';
import type { PasswordHasher } from '../../application/ports/credentials.js';

const KEY_BYTES = VERIFIER_HASH_BYTES;
const SALT_BYTES = VERIFIER_MIN_SALT_BYTES;
/** About 100 ms and 32 MiB per derivation on a small server; failed logins are throttled first. */
export const SCRYPT_COST = { n: 2 ** 15, r: 8, p: 1 };

function derive(password: string, salt: Buffer, cost: { n: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.n, r: cost.r, p: cost.p, maxmem: 256 * cost.n * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/** scrypt from node:crypto (tweetnacl has no password KDF); salts from tweetnacl, compared with nacl.verify. */
export class ScryptPasswordHasher implements PasswordHasher {
  constructor(private readonly cost = SCRYPT_COST) {}

  async derive(password: string): Promise<PasswordVerifier> {
    const salt = Buffer.from(nacl.randomBytes(SALT_BYTES));
    const hash = await derive(password, salt, this.cost);
    return { kdf: 'scrypt', ...this.cost, salt: salt.toString('base64url'), hash: hash.toString('base64url') };
  }

  async matches(password: string, verifier: PasswordVerifier): Promise<boolean> {
    const expected = Buffer.from(verifier.hash, 'base64url');
    const actual = await derive(password, Buffer.from(verifier.salt, 'base64url'), verifier);
    return expected.length === actual.length && nacl.verify(new Uint8Array(actual), new Uint8Array(expected));
  }
}
