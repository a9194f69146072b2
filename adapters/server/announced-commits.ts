import type { CommitSignals, CommitWatch } from '../../application/ports/commit-signals.js';
import { TimedCommitWatch } from '../timed-commit-watch.js';

/**
 * A server's word of commits: every commit it announces (its own group commits and transfers,
 * and with PostgreSQL those of the other processes it follows) wakes the calls waiting on that
 * project (`next --wait`) at once. `endAll` ends every wait when the server stops, so a waiting
 * request answers instead of holding the drain up. `watched` is told when the first wait begins
 * (true) and the last one ends (false): whether other processes' commits need to be heard.
 */
export class AnnouncedCommits implements CommitSignals {
  private readonly watching = new Map<string, Set<TimedCommitWatch>>();
  private waits = 0;

  constructor(private readonly watched?: (watched: boolean) => void) {}

  announce(project: string): void {
    for (const watch of this.watching.get(project) ?? []) watch.commit();
  }

  watch(project: string, waitMs: number): CommitWatch {
    const watches = this.watching.get(project) ?? new Set<TimedCommitWatch>();
    this.watching.set(project, watches);
    const watch = new TimedCommitWatch(waitMs, () => {
      if (!watches.delete(watch)) return;
      if (watches.size === 0) this.watching.delete(project);
      this.waits -= 1;
      if (this.waits === 0) this.watched?.(false);
    });
    watches.add(watch);
    this.waits += 1;
    if (this.waits === 1) this.watched?.(true);
    return watch;
  }

  endAll(): void {
    for (const watches of this.watching.values()) for (const watch of watches) watch.end();
  }
}
