/**
 * Word of a project's commits, for a call that waits for the project to change (`next --wait`):
 * local files are watched (another process commits), a server hears its own commits.
 *
 * Waiters stand in lines: the waits of one project that would find the same work (the same
 * operation and filters) share a `line`, and only the first in it hears commits. A commit thus
 * wakes one waiter per line, not all of them (32 idle agents each re-reading the graph and racing
 * for the one task a commit readied made the chain of claims at 32 agents 1.4x its bound, issue
 * 26). The first leaves the line when it has claimed (or its time is up), and the next becomes
 * first and looks at once: a commit that readied several tasks passes from waiter to waiter, one
 * claim each, and one that readied nothing costs one look. A first whose look finds nothing keeps
 * its place: the others in its line would find nothing either.
 */
export interface CommitSignals {
  /** Joins `line` of `project`'s waiters, for `waitMs` at most. */
  watch(project: string, waitMs: number, line: string): CommitWatch;
}

export interface CommitWatch {
  /**
   * Resolves true when this waiter should look: once when it becomes the first in its line (what
   * was committed before is now its to see), then at each commit since the last true; false once
   * its time is up or it is closed (the process stopping): then the caller answers what it has.
   */
  next(): Promise<boolean>;
  /** Leaves the line: the next in it becomes first. */
  close(): void;
}
