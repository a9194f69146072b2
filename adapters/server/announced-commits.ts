import type { CommitSignals, CommitWatch } from '../../application/ports/commit-signals.js';
import { TimedCommitWatch } from '../timed-commit-watch.js';

/**
 * A server's word of commits: every commit it announces (its own group commits and transfers,
 * and with PostgreSQL those of the other processes it follows) wakes, at once, the first of each
 * line of calls waiting on that project (`next --wait`; the lines: ports/commit-signals.ts). When
 * the first leaves, the next is told to look. `endAll` ends every wait when the server stops, so
 * a waiting request answers instead of holding the drain up. `watched` is told when a project's
 * first wait begins (true) and its last one ends (false): whether other processes' commits of it
 * need to be heard.
 */
export class AnnouncedCommits implements CommitSignals {
  /** Each project's lines, each first come, first served. */
  private readonly lines = new Map<string, Map<string, TimedCommitWatch[]>>();
  constructor(private readonly watched?: (project: string, watched: boolean) => void) {}

  announce(project: string): void {
    for (const line of this.lines.get(project)?.values() ?? []) line[0]?.commit();
  }

  watch(project: string, waitMs: number, line: string): CommitWatch {
    const lines = this.lines.get(project) ?? new Map<string, TimedCommitWatch[]>();
    if (lines.size === 0) this.watched?.(project, true);
    this.lines.set(project, lines);
    const waiters = lines.get(line) ?? [];
    lines.set(line, waiters);
    const watch = new TimedCommitWatch(waitMs, () => this.leave(project, line, watch));
    waiters.push(watch);
    if (waiters.length === 1) watch.commit(); // first in line: look at once
    return watch;
  }

  endAll(): void {
    for (const lines of this.lines.values()) for (const waiters of lines.values()) for (const watch of waiters) watch.end();
  }

  private leave(project: string, line: string, watch: TimedCommitWatch): void {
    const lines = this.lines.get(project);
    const waiters = lines?.get(line);
    const at = waiters?.indexOf(watch) ?? -1;
    if (!lines || !waiters || at < 0) return;
    waiters.splice(at, 1);
    if (at === 0) waiters[0]?.commit(); // the next is first now: it looks
    if (waiters.length === 0) lines.delete(line);
    if (lines.size > 0) return;
    this.lines.delete(project);
    this.watched?.(project, false);
  }
}
