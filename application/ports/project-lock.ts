export type LockMode = 'shared' | 'exclusive';

export interface LockOptions {
  /**
   * When false, a lock that does not exist yet is not created and `work` runs unlocked: nothing of
   * ours has ever written there (reads that must leave no trace, such as `migrate --dry-run`).
   */
  create?: boolean;
}

/**
 * One project's lock: shared for reads, exclusive for read-modify-write. Waiting for it never
 * blocks the event loop, and a holder that never lets go yields STORAGE_ERROR (`ELOCKTIMEOUT`)
 * rather than a hang. It is released when `work` settles, whether it resolves or throws.
 */
export interface ProjectLock {
  withLock<T>(mode: LockMode, work: () => T | Promise<T>, options?: LockOptions): Promise<T>;
}
