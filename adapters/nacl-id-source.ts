import path from 'node:path';
import type { IdSource } from '../application/ports/id-source.js';

type Nacl = { randomBytes(length: number): Uint8Array };
let nacl: Nacl | null = null;

function randomHex(bytes: number): string {
  nacl ??= require('tweetnacl') as Nacl;
  return Buffer.from(nacl.randomBytes(bytes)).toString('hex');
}

/** Random ids from tweetnacl's CSPRNG; loaded only when an id is actually generated. */
export class NaclIdSource implements IdSource {
  nodeSuffix(): string {
    return randomHex(4);
  }

  projectId(checkoutRoot: string): string {
    const slug = path.basename(checkoutRoot).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
    return `${slug || 'project'}-${randomHex(4)}`;
  }
}
