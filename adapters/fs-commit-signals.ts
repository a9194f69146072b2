import fs from 'graceful-fs';
import path from 'node:path';
import type { CommitSignals, CommitWatch } from '../application/ports/commit-signals.js';
import { TimedCommitWatch } from './timed-commit-watch.js';

/**
 * How often the state directory is also looked at, besides fs.watch: a file system that does not
 * report changes (some network mounts) or a process out of inotify instances still sees commits
 * within this, at the cost of a directory listing.
 */
const POLL_MS = 500;

/**
 * Commits of projects on local files, made by any process: a commit appends to the project's
 * ledger (or renames a new checkpoint in), which fs.watch on the state directory reports at once;
 * a look at the directory's files (names, sizes, times) every POLL_MS catches what it does not.
 * Nothing else in the directory changes without a commit (the lock is an flock, and its line of
 * waiters lives elsewhere), so a report means a commit, or at worst a needless look.
 */
export class FsCommitSignals implements CommitSignals {
  constructor(private readonly locationOf: (project: string) => string) {}

  watch(project: string, waitMs: number): CommitWatch {
    const dir = this.locationOf(project);
    let seen = signature(dir);
    let watcher: fs.FSWatcher | null = null;
    const poll = setInterval(() => {
      const now = signature(dir);
      if (now === seen) return;
      seen = now;
      watch.commit();
    }, POLL_MS);
    const watch = new TimedCommitWatch(waitMs, () => {
      clearInterval(poll);
      watcher?.close();
    });
    try {
      watcher = fs.watch(dir, { persistent: false }, () => {
        seen = signature(dir);
        watch.commit();
      });
      watcher.on('error', () => undefined); // the poll goes on
    } catch {
      watcher = null; // no inotify instance left, or no directory yet: the poll alone
    }
    return watch;
  }
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
