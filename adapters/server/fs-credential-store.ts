import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CredentialStore } from '../../application/ports/auth-store.js';
import { parseCredentials, renderCredentials, type Credential } from '../../application/server/credential-record.js';
import { SERVER_FILE_NAMES } from '../../application/server/server-config.js';
import { DomainError } from '../../domain/errors.js';
import { FlockProjectLock } from '../flock-project-lock.js';
import { invalidFile, storageError } from '../storage-error.js';
import { writeFileDurably } from './durable-write.js';

/**
 * `<stateHome>/remote-credentials.json`, mode 0600: written only by the operator's `server
 * credential` commands (one at a time, under an flock beside it; each write an atomic, durable
 * replacement), read by the server at every login and bearer check. A read reuses the last
 * parse while the file is the same one (inode, size, mtime), so a bearer check costs one stat.
 * A corrupt file fails closed: no credential is trusted until the operator fixes it.
 */
export class FsCredentialStore implements CredentialStore {
  readonly location: string;
  private readonly lock: FlockProjectLock;
  private cached: { key: string; credentials: Credential[] } | null = null;

  constructor(stateHome: string) {
    this.location = path.join(stateHome, SERVER_FILE_NAMES.credentials);
    this.lock = new FlockProjectLock(`${this.location}.lock`);
  }

  async list(): Promise<Credential[]> {
    let key: string;
    try {
      const found = await stat(this.location, { bigint: true });
      key = `${found.ino}:${found.size}:${found.mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError(`Cannot read ${this.location}`, error, { path: this.location });
    }
    if (this.cached?.key === key) return this.cached.credentials;
    const credentials = await this.read();
    this.cached = { key, credentials };
    return credentials;
  }

  async find(name: string): Promise<Credential | null> {
    return (await this.list()).find((credential) => credential.name === name) ?? null;
  }

  async findById(id: string): Promise<Credential | null> {
    return (await this.list()).find((credential) => credential.id === id) ?? null;
  }

  add(credential: Credential): Promise<boolean> {
    return this.change((credentials) => (credentials.some((known) => known.name === credential.name) ? null : [...credentials, credential]));
  }

  remove(name: string): Promise<boolean> {
    return this.change((credentials) => (credentials.some((known) => known.name === name) ? credentials.filter((known) => known.name !== name) : null));
  }

  /** Read, edit, write under the lock; `edit` answers null when there is nothing to write. */
  private async change(edit: (credentials: Credential[]) => Credential[] | null): Promise<boolean> {
    await this.requireStateHomeOwner();
    return this.lock.withLock('exclusive', async () => {
      const next = edit(await this.read());
      if (next === null) return false;
      try {
        await writeFileDurably(this.location, renderCredentials(next), 0o600);
      } catch (error) {
        throw storageError(`Cannot write ${this.location}`, error, { path: this.location });
      }
      return true;
    });
  }

  /**
   * The server reads this file as the user that owns the state home (the service user). Written
   * by anyone else (root, typically), the file would be theirs, mode 0600, and every login of a
   * bound server would fail on it: so only that user may change it.
   */
  private async requireStateHomeOwner(): Promise<void> {
    const uid = process.getuid?.();
    if (uid === undefined) return;
    const dir = path.dirname(this.location);
    let owner: number;
    try {
      owner = (await stat(dir)).uid;
    } catch (error) {
      throw storageError(`Cannot read ${dir}`, error, { path: dir });
    }
    if (owner === uid) return;
    throw new DomainError(
      'STORAGE_ERROR',
      `${dir} belongs to uid ${owner}, who runs the server, not to this user (uid ${uid}): run the command as that user (e.g. sudo -u '#${owner}' taskdag server credential ...), so the server can read the credentials it writes`,
      { cause: 'EPERM', path: dir, owner_uid: owner, uid },
    );
  }

  private async read(): Promise<Credential[]> {
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError(`Cannot read ${this.location}`, error, { path: this.location });
    }
    const parsed = parseCredentials(text);
    if ('problem' in parsed) throw invalidFile(this.location, parsed.problem);
    return parsed.credentials;
  }
}
