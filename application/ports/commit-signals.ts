/**
 * Word of a project's commits, for a call that waits for the project to change (`next --wait`):
 * local files are watched (another process commits), a server hears its own commits.
 */
export interface CommitSignals {
  /** Watches `project`'s commits from now, for `waitMs` at most. */
  watch(project: string, waitMs: number): CommitWatch;
}

export interface CommitWatch {
  /**
   * Resolves true at the first commit since the watch began (or since the last true), false once
   * its time is up or it is closed (the process stopping): then the caller answers what it has.
   */
  next(): Promise<boolean>;
  close(): void;
}
