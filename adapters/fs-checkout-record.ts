import path from 'node:path';
import { onFirstUse } from './lazy-builtin.js';
import { parseCheckouts, renderCheckouts } from '../application/board/checkouts.js';
import type { CheckoutRecordStore, SeenCheckouts } from '../application/ports/checkout-record.js';
import { writeFileDurably } from './server/durable-write.js';
import { storageError } from './storage-error.js';

const fsp = onFirstUse(() => require('node:fs/promises') as typeof import('node:fs/promises'));

/** The name of the record in a server's state home and in the local taskdag home. */
export const CHECKOUTS_FILE = 'checkouts.json';

/**
 * `<dir>/checkouts.json`, mode 0600, replaced atomically and durably. A file that is not such a
 * record reads as empty (it holds only what a board shows, and is rewritten on the next change).
 */
export class FsCheckoutRecord implements CheckoutRecordStore {
  readonly location: string;

  constructor(dir: string) {
    this.location = path.join(dir, CHECKOUTS_FILE);
  }

  async load(): Promise<SeenCheckouts> {
    let text: string;
    try {
      text = await fsp().readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw storageError(`Cannot read ${this.location}`, error, { path: this.location });
    }
    return parseCheckouts(text) ?? {};
  }

  async save(record: SeenCheckouts): Promise<void> {
    try {
      await writeFileDurably(this.location, renderCheckouts(record), 0o600);
    } catch (error) {
      throw storageError(`Cannot write ${this.location}`, error, { path: this.location });
    }
  }
}
