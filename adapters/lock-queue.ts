import fs from 'graceful-fs';
import path from 'node:path';
import { flock } from './flock.js';
import { storageError } from './storage-error.js';

/**
 * How often a waiter looks at its predecessor's ticket besides being told by the file system: to
 * see a predecessor that died (its flock is gone but its file stays), or a change fs.watch missed.
 */
const DEAD_PREDECESSOR_CHECK_MS = 100;
/** Without fs.watch (no inotify instance left, say), a waiter polls with this growing pause instead. */
const POLL_MAX_MS = 25;
/**
 * How long after a writer last joined the line others keep joining it, even when it looks empty:
 * writers contend then, and one that asked may not be in line yet (on a loaded machine a process
 * can take hundreds of milliseconds from asking to writing its name), so the free lock is left to
 * the line. A lone writer never joins it, so it never waits for this.
 */
const LINE_QUIET_MS = 1_000;

/** A place in the queue: held from `enter` until `leave`. */
export interface LockTicket {
  leave(): void;
}

/**
 * A first-come, first-served line in front of a lock, across processes (issue 26: with 32 agents
 * on two cores, polling a non-blocking flock let one caller lose every attempt for a minute and
 * fail ELOCKTIMEOUT, while the others went round many times). Each waiter makes a ticket file in
 * `dir`, holds an flock on it, and swaps its name into `dir/tail` (under a short flock of its own):
 * the name it replaced is its predecessor's. It then waits until that ticket is gone: its owner
 * deletes it once it has let go of the lock, and fs.watch says so at once, so the lock passes from
 * one to the next without a polling pause. A predecessor that died leaves its file but not its
 * flock, which a periodic look finds (and the file is removed). The kernel drops every flock of a
 * dead process, so nothing here can be left stuck. (A process killed between making its ticket
 * and joining the line, a few microseconds, leaves an empty file nobody waits on.)
 *
 * The line lives outside the project, in a directory of this user's under the temp directory
 * named by the lock file's device, inode and birth time (`queueFor`): the state directory holds
 * the state only, so a refused command still leaves it byte for byte as it was. The birth time
 * keeps a new lock file that got a deleted one's inode out of the deleted one's line. Processes
 * of another user (or another TMPDIR) queue apart; the lock's flock still excludes them.
 *
 * A line's directory goes when its line is empty (`removeIfEmpty`): as its last ticket leaves, or,
 * for a lock's line, which stays `keptMs` after the last writer joined it (see `idle`), at the
 * first lone writer past that. A ticket whose process was killed before it joined (microseconds)
 * keeps the directory until the lock file itself is gone; nothing waits on it.
 *
 * The same line orders the processes waiting for a project to change (`waitingLineFor`,
 * fs-commit-signals.ts): there the first in line is the one that watches for commits.
 */
export class LockQueue {
  private static sequence = 0;
  /**
   * Each line's joiners of this process, one after another in the order they asked: the kernel
   * grants a waited-for flock in no particular order, so two of one process waiting for the tail
   * at once could swap their names in either order.
   */
  private static joining = new Map<string, Promise<unknown>>();

  /** `keptMs`: how long the line stays after a writer last joined it, though nobody is in it (see `idle`). */
  constructor(
    readonly dir: string,
    private readonly keptMs: number,
  ) {}

  /**
   * Whether nobody is in line nor about to be: nobody joined it for `keptMs` (or ever), and the
   * tail names a ticket whose file is gone (its owner left); such a line is removed on the way.
   * A ticket file still there, even a dead owner's, counts as someone in line: joining the line
   * is what finds a dead one out. An empty tail counts as someone joining, since a joiner empties
   * it before writing its own name (swapTail); it is read without the tail's flock, which joiners
   * contend for. False when the line cannot be read.
   */
  idle(): boolean {
    const tail = path.join(this.dir, 'tail');
    let last: string;
    try {
      const joined = fs.statSync(tail, { throwIfNoEntry: false });
      if (joined === undefined) return true;
      if (!(Date.now() - joined.mtimeMs > this.keptMs)) return false;
      last = fs.readFileSync(tail, 'utf8');
    } catch {
      return false;
    }
    if (last === '' || fs.existsSync(path.join(this.dir, last))) return false;
    this.removeIfEmpty();
    return true;
  }

  /** Waits for every earlier ticket to leave; throws `timedOut()` past `deadline`. */
  async enter(deadline: number, timedOut: () => Error): Promise<LockTicket> {
    const ticket = this.createTicket();
    try {
      const predecessor = await this.swapTail(ticket.name, deadline, timedOut);
      if (predecessor !== null) await this.waitUntilGone(predecessor, deadline, timedOut);
      return ticket;
    } catch (error) {
      ticket.leave();
      throw error;
    }
  }

  private createTicket(): LockTicket & { name: string } {
    const name = `${process.pid}-${++LockQueue.sequence}-${Date.now().toString(36)}`;
    const file = path.join(this.dir, name);
    let fd: number;
    const create = () => fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      try {
        fd = create();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 }); // the first ticket of this lock
        fd = create();
      }
      flock().flockSync(fd, 'exnb');
    } catch (error) {
      throw storageError('Cannot join the project lock queue', error, { path: file });
    }
    return {
      name,
      // Deleted before its flock goes: a successor watching the file wakes on the delete, and one
      // that opened it just before finds the flock gone. The last to leave takes the line with it.
      leave: () => {
        removeQuietly(file);
        fs.closeSync(fd);
        this.removeIfEmpty();
      },
    };
  }

  /**
   * Removes the line when nobody is in it: its tail names a ticket whose file is gone, nobody
   * joined it for `keptMs`, and nobody holds the tail's flock (a joiner swapping its name in).
   * Race-safe against joiners: the tail is unlinked under its flock, so a joiner that opened it
   * before finds it unlinked once it gets the flock and opens a new one (swapTail); the directory
   * is removed only when empty, so a joiner whose ticket is made keeps it, and one whose ticket is
   * not yet made makes the directory again. Errors leave the line as it is: it is only tidying.
   */
  private removeIfEmpty(): void {
    const tail = path.join(this.dir, 'tail');
    let fd: number;
    try {
      fd = fs.openSync(tail, fs.constants.O_RDWR);
    } catch {
      return; // gone already, or never made
    }
    try {
      if (!tryFlock(fd, 'exnb')) return;
      const stats = fs.fstatSync(fd);
      if (stats.nlink === 0 || (this.keptMs > 0 && Date.now() - stats.mtimeMs < this.keptMs)) return;
      const last = fs.readFileSync(fd, 'utf8');
      if (last !== '' && fs.existsSync(path.join(this.dir, last))) return;
      fs.unlinkSync(tail);
    } catch {
      return;
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.rmdirSync(this.dir);
    } catch {
      // ENOTEMPTY: a joiner's ticket is there (it makes a new tail), or a dead one's.
    }
  }

  /**
   * Writes `name` as the queue's tail and answers the ticket it replaced (null: the queue was
   * empty). A tail found unlinked once its flock is granted was removed with an empty line
   * (removeIfEmpty): a new one is opened, and this ticket is the first of the line.
   */
  private async swapTail(name: string, deadline: number, timedOut: () => Error): Promise<string | null> {
    const earlier = LockQueue.joining.get(this.dir);
    const swapped = earlier === undefined ? this.swapTailNow(name, deadline, timedOut) : earlier.then(() => this.swapTailNow(name, deadline, timedOut));
    const settled = swapped.catch(() => undefined);
    LockQueue.joining.set(this.dir, settled);
    try {
      return await swapped;
    } finally {
      if (LockQueue.joining.get(this.dir) === settled) LockQueue.joining.delete(this.dir);
    }
  }

  private async swapTailNow(name: string, deadline: number, timedOut: () => Error): Promise<string | null> {
    const tail = path.join(this.dir, 'tail');
    for (;;) {
      let fd: number;
      try {
        fd = fs.openSync(tail, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
      } catch (error) {
        throw storageError('Cannot join the project lock queue', error, { path: tail });
      }
      await lockExclusively(fd, deadline, timedOut, tail);
      try {
        if (fs.fstatSync(fd).nlink === 0) continue;
        const before = fs.readFileSync(fd, 'utf8');
        const bytes = Buffer.from(name);
        fs.ftruncateSync(fd, 0);
        fs.writeSync(fd, bytes, 0, bytes.length, 0);
        return before === '' ? null : before;
      } catch (error) {
        throw storageError('Cannot join the project lock queue', error, { path: tail });
      } finally {
        fs.closeSync(fd);
      }
    }
  }

  private async waitUntilGone(predecessor: string, deadline: number, timedOut: () => Error): Promise<void> {
    const file = path.join(this.dir, predecessor);
    // Mostly it has left already (the tail names the last holder until someone else joins).
    if (this.left(file)) return;
    const changed = watchOnce(file);
    try {
      for (let pause = 1; !this.left(file); pause = Math.min(pause * 2, POLL_MAX_MS)) {
        const left = deadline - Date.now();
        if (left <= 0) throw timedOut();
        await (changed.watching ? Promise.race([changed.next(), sleep(Math.min(DEAD_PREDECESSOR_CHECK_MS, left))]) : sleep(Math.min(pause, left)));
      }
    } finally {
      changed.close();
    }
  }

  /** The ticket's owner has left: the file is gone, or its flock is (a dead owner's file is removed). */
  private left(file: string): boolean {
    let fd: number;
    try {
      // existsSync throws nothing: most looks find the file gone, and a thrown error costs more than the look.
      if (!fs.existsSync(file)) return true;
      fd = fs.openSync(file, fs.constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw storageError('Cannot read the project lock queue', error, { path: file });
    }
    try {
      if (!tryFlock(fd, 'shnb')) return false;
      removeQuietly(file);
      return true;
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Made, or found and checked, once per process: null when the temp directory will not do. */
let usersQueues: string | null | undefined;

/**
 * The line in front of the lock open as `lockFd`, or null when there is no private place for it
 * (the temp directory is not writable, or its taskdag directory is not this user's alone): the
 * caller then waits without a line.
 */
export function queueFor(lockFd: number): LockQueue | null {
  return queueNamed(identityOf(fs.fstatSync(lockFd, { bigint: true })), LINE_QUIET_MS);
}

/**
 * A line of calls waiting for `stateDir`'s project to change (`next --wait`), one per `line`
 * (fs-commit-signals.ts), beside the lock's: named by the project lock file's identity and a hash
 * of the line. Removed as its last waiter leaves. Null as `queueFor`, or when the lock file
 * cannot be read (a waiting `next` has taken the lock once before it waits, which makes it).
 */
export function waitingLineFor(stateDir: string, line: string): LockQueue | null {
  let stats: fs.BigIntStats;
  try {
    stats = fs.statSync(path.join(stateDir, 'lock'), { bigint: true });
  } catch {
    return null;
  }
  // tweetnacl is required here, not imported: every command that takes a project's lock loads
  // this module, and only `next --wait` hashes (loading tweetnacl, and node:crypto under it for
  // its random source, costs a command milliseconds).
  const nacl = require('tweetnacl') as typeof import('tweetnacl');
  const hash = Buffer.from(nacl.hash(Buffer.from(line, 'utf8')).subarray(0, 8)).toString('hex');
  return queueNamed(`${identityOf(stats)}-waiting-${hash}`, 0);
}

/**
 * A lock file's identity: device, inode and birth time. The inode alone is reused as soon as a
 * lock file is deleted (ext4 hands it to the next file made), and a line named by it would be
 * inherited by an unrelated lock. Where the file system keeps no birth time, the change time
 * stands in: a lock file is never written, renamed or re-permissioned, so it stays its creation's.
 */
function identityOf(stats: fs.BigIntStats): string {
  const born = stats.birthtimeNs > 0n ? stats.birthtimeNs : stats.ctimeNs;
  return `${stats.dev}-${stats.ino}-${born.toString(36)}`;
}

function queueNamed(name: string, keptMs: number): LockQueue | null {
  usersQueues ??= privateDirectory(path.join(process.env.TMPDIR || '/tmp', `taskdag-locks-${process.getuid?.() ?? 'user'}`));
  return usersQueues === null ? null : new LockQueue(path.join(usersQueues, name), keptMs);
}

/** `dir`, made if need be, when it is a directory of this user's that nobody else may write in. */
function privateDirectory(dir: string): string | null {
  try {
    // Looked at before it is made: it is there for every command but a user's first, and a mkdir
    // that fails EEXIST costs an error thrown.
    let stats = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (stats === undefined) {
      try {
        fs.mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      stats = fs.lstatSync(dir);
    }
    const mine = process.getuid === undefined || stats.uid === process.getuid();
    return stats.isDirectory() && mine && (stats.mode & 0o077) === 0 ? dir : null;
  } catch {
    return null;
  }
}

/** A non-blocking flock: false when another holds it. */
export function tryFlock(fd: number, flag: 'shnb' | 'exnb'): boolean {
  try {
    flock().flockSync(fd, flag);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw storageError('Cannot lock the project', error);
  }
}

/**
 * An exclusive flock on `fd`, waited for in the kernel on libuv's thread pool, so the lock passes
 * the moment its holder lets go: polling with pauses left a joiner hundreds of milliseconds
 * behind on a loaded machine, each pause stretched by the scheduler. A free lock is taken at
 * once, without the pool. Past `deadline` it rejects with `timedOut()`, and the grant that comes
 * later closes `fd`; on any failure `fd` is closed here.
 */
function lockExclusively(fd: number, deadline: number, timedOut: () => Error, file: string): Promise<void> {
  try {
    if (tryFlock(fd, 'exnb')) return Promise.resolve();
  } catch (error) {
    fs.closeSync(fd);
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(timedOut());
    }, Math.max(0, deadline - Date.now()));
    flock().flock(fd, 'ex', (error) => {
      clearTimeout(timer);
      if (late || error) fs.closeSync(fd);
      if (late) return;
      if (error) reject(storageError('Cannot join the project lock queue', error, { path: file }));
      else resolve();
    });
  });
}

/**
 * Changes to `file` as a promise to wait on, re-armed after each change; `watching` is false when
 * the file system cannot watch (the file is already gone, or no inotify instance is left): the
 * caller then polls.
 */
function watchOnce(file: string): { watching: boolean; next(): Promise<void>; close(): void } {
  let wake: (() => void) | null = null;
  let pending = false;
  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(file, { persistent: false }, () => {
      pending = true;
      wake?.();
    });
    watcher.on('error', () => wake?.());
  } catch {
    watcher = null;
  }
  return {
    watching: watcher !== null,
    next: () =>
      pending
        ? Promise.resolve((pending = false, undefined))
        : new Promise<void>((resolve) => {
            wake = () => {
              wake = null;
              pending = false;
              resolve();
            };
          }),
    close: () => watcher?.close(),
  };
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Already removed: by a successor that found its owner dead, or by a concurrent look.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
