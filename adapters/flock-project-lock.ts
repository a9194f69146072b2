import fs from 'graceful-fs';
import path from 'node:path';
import { DomainError } from '../domain/errors.js';
import type { LockMode, LockOptions, ProjectLock } from '../application/ports/project-lock.js';
import { queueFor, tryFlock, type LockQueue, type LockTicket } from './lock-queue.js';
import { storageError } from './storage-error.js';

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The per-project lock: an flock on a file that is never replaced (locking the state file itself
 * breaks when a new one is renamed over it). The kernel drops it when its holder dies, so a crashed
 * writer never leaves a stale lock. Shared for reads, exclusive for read-modify-write. Waiting is
 * a series of non-blocking attempts separated by timers, so the event loop keeps serving others.
 */
export class FlockProjectLock implements ProjectLock {
  /** Fair: exclusive holders take the lock in the order they asked for it (LockQueue). */
  private readonly fair: boolean;

  constructor(
    private readonly lockFile: string,
    private readonly timeoutMs = Number(process.env.TASKDAG_LOCK_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
    options: { fair?: boolean } = {},
  ) {
    this.fair = options.fair ?? false;
  }

  async withLock<T>(mode: LockMode, work: () => T | Promise<T>, options: LockOptions = {}): Promise<T> {
    if (options.create === false && !fs.existsSync(this.lockFile)) return work();
    const fd = this.open(mode);
    const deadline = Date.now() + this.timeoutMs;
    let ticket: LockTicket | null = null;
    try {
      const queue = mode === 'exclusive' && this.fair ? queueFor(fd) : null;
      // Nobody in line nor joining it lately, and the lock free: a lone writer takes it at once,
      // as the first in line would, without a ticket (its files cost a command more than the rest
      // of the lock). A writer that finds anyone in line joins it behind them, so none is overtaken.
      if (!queue?.idle() || !tryFlock(fd, 'exnb')) {
        if (mode === 'exclusive' && this.fair) ticket = await this.inLine(queue, deadline);
        await this.acquire(fd, mode, deadline);
      }
      return await work();
    } finally {
      fs.closeSync(fd); // closing the descriptor releases the flock
      ticket?.leave(); // then the next in line goes
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

  /**
   * Non-blocking attempts with a growing pause, so a wedged holder yields an error, not a hang.
   * After the queue, the first attempt nearly always wins: only readers, a holder that gave up its
   * place, or a taskdag without the queue can be in the way.
   */
  private async acquire(fd: number, mode: LockMode, deadline: number): Promise<void> {
    const flag = mode === 'shared' ? 'shnb' : 'exnb';
    for (let pause = 1; !tryFlock(fd, flag); pause = Math.min(pause * 2, 25)) {
      if (Date.now() >= deadline) throw this.timedOut();
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    }
  }

  /**
   * Waits for its turn in the line; a line that cannot be kept (the temp directory full or not
   * writable, `queue` null) is given up for the plain wait, since the flock alone keeps writers apart.
   */
  private async inLine(queue: LockQueue | null, deadline: number): Promise<LockTicket | null> {
    const timedOut = this.timedOut();
    try {
      return (await queue?.enter(deadline, () => timedOut)) ?? null;
    } catch (error) {
      if (error === timedOut) throw error;
      return null;
    }
  }

  private timedOut(): DomainError {
    return new DomainError('STORAGE_ERROR', `The project lock was busy for ${this.timeoutMs} ms`, { cause: 'ELOCKTIMEOUT', path: this.lockFile });
  }
}

/**
 * The lock of a project's state directory: an flock on its `lock` file, its exclusive holders
 * first come, first served (LockQueue), since agents' processes contend for it. A writer that
 * finds nobody in line nor joining it lately, and the lock free, takes no place in the line (no
 * ticket file made and removed): that is every command of a lone agent.
 */
export function stateDirectoryLock(location: string): FlockProjectLock {
  return new FlockProjectLock(path.join(location, 'lock'), undefined, { fair: true });
}

/**
 * The same lock without the line, for a process that owns its data root and orders its own
 * writers (the server's group commit): nobody queues against it, so a ticket would be pure cost.
 */
export function ownedStateDirectoryLock(location: string): FlockProjectLock {
  return new FlockProjectLock(path.join(location, 'lock'));
}
