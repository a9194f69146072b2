import nacl from 'tweetnacl';
import type { SecretSource } from '../../application/ports/secret-source.js';

export const SECRET_BYTES = 32;

export class TweetnaclSecretSource implements SecretSource {
  secret(): string {
    return Buffer.from(nacl.randomBytes(SECRET_BYTES)).toString('base64url');
  }
}
