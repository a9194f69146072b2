import fs from 'graceful-fs';
import path from 'node:path';
import { DomainError } from '../domain/errors.js';
import type { LockMode, LockOptions, ProjectLock } from '../application/ports/project-lock.js';
import { onFirstUse } from './lazy-builtin.js';
import { storageError } from './storage-error.js';

type FsExt = { flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void };

// Loaded on first lock: commands that never touch a project (help, version) skip the native addon.
const flock = onFirstUse(() => require('fs-ext') as FsExt);

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The per-project lock: an flock on a file that is never replaced (locking the state file itself
 * breaks when a new one is renamed over it). The kernel drops it when its holder dies, so a crashed
 * writer never leaves a stale lock. Shared for reads, exclusive for read-modify-write. Waiting is
 * a series of non-blocking attempts separated by timers, so the event loop keeps serving others.
 */
export class FlockProjectLock implements ProjectLock {
  constructor(
    private readonly lockFile: string,
    private readonly timeoutMs = Number(process.env.TASKDAG_LOCK_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
  ) {}

  async withLock<T>(mode: LockMode, work: () => T | Promise<T>, options: LockOptions = {}): Promise<T> {
    if (options.create === false && !fs.existsSync(this.lockFile)) return work();
    const fd = this.open(mode);
    try {
      await this.acquire(fd, mode);
      return await work();
    } finally {
      fs.closeSync(fd); // closing the descriptor releases the flock
    }
  }

  /** Readers fall back to a read-only descriptor (flock works on one), so a read-only directory can still be read. */
  private open(mode: LockMode): number {
    try {
      return fs.openSync(this.lockFile, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (mode === 'shared' && (code === 'EROFS' || code === 'EACCES')) {
        try {
          return fs.openSync(this.lockFile, fs.constants.O_RDONLY);
        } catch {
          // Report the first failure, which says why the lock could not be created.
        }
      }
      throw storageError('Cannot open the project lock', error, { path: this.lockFile });
    }
  }

  /** Non-blocking attempts with a growing pause, so a wedged holder yields an error, not a hang. */
  private async acquire(fd: number, mode: LockMode): Promise<void> {
    const flag = mode === 'shared' ? 'shnb' : 'exnb';
    const deadline = Date.now() + this.timeoutMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
      try {
        flock().flockSync(fd, flag);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw storageError('Cannot lock the project', error);
      }
      if (Date.now() >= deadline) {
        throw new DomainError('STORAGE_ERROR', `The project lock was busy for ${this.timeoutMs} ms`, {
          cause: 'ELOCKTIMEOUT',
          path: this.lockFile,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    }
  }
}

/** The lock of a project's state directory: an flock on its `lock` file. */
export function stateDirectoryLock(location: string): FlockProjectLock {
  return new FlockProjectLock(path.join(location, 'lock'));
}
