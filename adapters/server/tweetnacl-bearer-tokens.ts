import nacl from 'tweetnacl';
import type { BearerTokens } from '../../application/ports/credentials.js';

const BEARER_BYTES = 32;
const BASE64URL_OF_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

/** Bearers of 32 random bytes (base64url); stored as the hex of their SHA-512. */
export class TweetnaclBearerTokens implements BearerTokens {
  mint(): { bearer: string; hash: string } {
    const bytes = nacl.randomBytes(BEARER_BYTES);
    return { bearer: Buffer.from(bytes).toString('base64url'), hash: hashOf(bytes) };
  }

  hashOf(bearer: string): string | null {
    if (!BASE64URL_OF_32_BYTES.test(bearer)) return null;
    return hashOf(new Uint8Array(Buffer.from(bearer, 'base64url')));
  }
}

function hashOf(bytes: Uint8Array): string {
  return Buffer.from(nacl.hash(bytes)).toString('hex');
}
