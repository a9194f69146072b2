import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { IdSource } from '../application/ports/id-source.js';

/**
 * Random bytes from the kernel's CSPRNG through /dev/urandom, the source node:crypto itself is
 * seeded from. One read costs well under a millisecond, where loading node:crypto (or tweetnacl,
 * which loads it) costs a command about 5 ms of module set-up: ids are made once per process, so
 * that is what dominates. Where there is no /dev/urandom, node:crypto serves.
 */
function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      for (let read = 0; read < length; ) read += readSync(fd, bytes, read, length - read, null);
    } finally {
      closeSync(fd);
    }
    return bytes;
  } catch {
    return (require('node:crypto') as typeof import('node:crypto')).randomBytes(length);
  }
}

const randomHex = (length: number) => randomBytes(length).toString('hex');

/** Random ids: node suffixes and project ids. */
export class KernelRandomIdSource implements IdSource {
  nodeSuffix(): string {
    return randomHex(4);
  }

  projectId(checkoutRoot: string): string {
    const slug = path.basename(checkoutRoot).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
    return `${slug || 'project'}-${randomHex(4)}`;
  }
}
