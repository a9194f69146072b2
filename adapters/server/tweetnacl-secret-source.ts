import type { SecretSource } from '../../application/ports/secret-source.js';

export const SECRET_BYTES = 32;

/**
 * tweetnacl (and node:crypto under it) is loaded on first use: the CLI bundle carries this
 * adapter for `server init`, and loading it up front would cost every other command its set-up.
 */
export class TweetnaclSecretSource implements SecretSource {
  secret(): string {
    const nacl = require('tweetnacl') as typeof import('tweetnacl');
    return Buffer.from(nacl.randomBytes(SECRET_BYTES)).toString('base64url');
  }
}
