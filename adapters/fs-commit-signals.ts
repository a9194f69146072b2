import fs from 'graceful-fs';
import path from 'node:path';
import type { CommitSignals, CommitWatch } from '../application/ports/commit-signals.js';
import { waitingLineFor, type LockTicket } from './lock-queue.js';
import { TimedCommitWatch } from './timed-commit-watch.js';

/**
 * How often the state directory is also looked at, besides fs.watch: a file system that does not
 * report changes (some network mounts) or a process out of inotify instances still sees commits
 * within this, at the cost of a directory listing.
 */
const POLL_MS = 500;

/**
 * Commits of projects on local files, made by any process, heard by the first waiter of each line
 * (ports/commit-signals.ts). The line is a LockQueue across processes (lock-queue.ts): a waiter
 * takes a ticket and waits for the one before it to leave, which it does once it has claimed or
 * its time is up (or it died: its flock goes with it). The first watches the state directory: a
 * commit appends to the project's ledger (or renames a new checkpoint in), which fs.watch reports
 * at once; a look at the directory's files (names, sizes, times) every POLL_MS catches what it
 * does not. Nothing else in the directory changes without a commit (the lock is an flock, and the
 * lines live elsewhere), so a report means a commit, or at worst a needless look. Where no line
 * can be kept (the temp directory not writable), every waiter watches the directory itself.
 */
export class FsCommitSignals implements CommitSignals {
  constructor(private readonly locationOf: (project: string) => string) {}

  watch(project: string, waitMs: number, line: string): CommitWatch {
    const dir = this.locationOf(project);
    const deadline = Date.now() + waitMs;
    let ticket: LockTicket | null = null;
    let stopWatching: (() => void) | null = null;
    let closed = false;
    const watch = new TimedCommitWatch(waitMs, () => {
      if (closed) return;
      closed = true;
      stopWatching?.();
      ticket?.leave(); // the next in line becomes first
    });
    const first = () => {
      stopWatching = watchDirectory(dir, () => watch.commit());
      watch.commit(); // look at once: what was committed before is this waiter's to see now
    };
    const queue = waitingLineFor(dir, line);
    if (queue === null) {
      first();
      return watch;
    }
    const timedOut = new Error('the wait is over');
    queue.enter(deadline, () => timedOut).then(
      (entered) => {
        if (closed) return entered.leave();
        ticket = entered;
        first();
      },
      (error: unknown) => {
        // Past its time, the watch ends on its own timer; a line that cannot be kept is waited without.
        if (error !== timedOut && !closed) first();
      },
    );
    return watch;
  }
}

/** Calls `changed` at each change of `dir`'s files (fs.watch, and a look every POLL_MS); answers how to stop. */
function watchDirectory(dir: string, changed: () => void): () => void {
  let seen = signature(dir);
  const poll = setInterval(() => {
    const now = signature(dir);
    if (now === seen) return;
    seen = now;
    changed();
  }, POLL_MS);
  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(dir, { persistent: false }, () => {
      seen = signature(dir);
      changed();
    });
    watcher.on('error', () => undefined); // the poll goes on
  } catch {
    watcher = null; // no inotify instance left, or no directory yet: the poll alone
  }
  return () => {
    clearInterval(poll);
    watcher?.close();
  };
}

/** What the directory's files are now: a commit changes a ledger's size or a checkpoint's time. */
function signature(dir: string): string {
  try {
    return fs
      .readdirSync(dir)
      .filter((name) => name !== 'lock')
      .sort()
      .map((name) => {
        const stats = fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
        return stats ? `${name}:${stats.size}:${stats.mtimeMs}` : name;
      })
      .join('/');
  } catch {
    return '';
  }
}
