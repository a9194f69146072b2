import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseAuthRecord, renderAuthRecord, type AuthRecord } from '../../application/server/auth-record.js';
import { SERVER_FILE_NAMES } from '../../application/server/server-config.js';
import type { OwnAuthStore, StoredAuth } from '../../application/ports/auth-store.js';
import { storageError } from '../storage-error.js';
import { writeFileDurably } from './durable-write.js';
import { FsCredentialStore } from './fs-credential-store.js';

/** `<stateHome>/remote-auth.json`, mode 0600, replaced atomically and durably on every change. */
export class FsAuthStore implements OwnAuthStore {
  readonly location: string;
  /** In a file of their own: the operator's commands write it while the server, which owns remote-auth.json, runs. */
  readonly credentials: FsCredentialStore;

  constructor(stateHome: string) {
    this.location = path.join(stateHome, SERVER_FILE_NAMES.auth);
    this.credentials = new FsCredentialStore(stateHome);
  }

  /** Called at startup, under the service lock: temp files a crashed write left behind go first. */
  async load(): Promise<StoredAuth> {
    const dir = path.dirname(this.location);
    const prefix = `${path.basename(this.location)}.tmp-`;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name.startsWith(prefix)) await rm(path.join(dir, name), { force: true });
    }
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
      throw storageError(`Cannot read ${this.location}`, error, { path: this.location });
    }
    const parsed = parseAuthRecord(text);
    return 'record' in parsed ? { kind: 'valid', record: parsed.record } : { kind: 'corrupt', problem: parsed.problem };
  }

  /** Always written: under the service lock this process is the file's only writer, so nothing can have changed since `load`. */
  async install(record: AuthRecord): Promise<boolean> {
    await this.save(record);
    return true;
  }

  async save(record: AuthRecord): Promise<void> {
    try {
      await writeFileDurably(this.location, renderAuthRecord(record), 0o600);
    } catch (error) {
      throw storageError(`Cannot write ${this.location}`, error, { path: this.location });
    }
  }
}
