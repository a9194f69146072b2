import type { CommitWatch } from '../application/ports/commit-signals.js';

/**
 * A CommitWatch fed by whoever hears of commits (`commit()`): `next()` resolves true for a commit
 * heard since the last one it reported, false once `waitMs` has passed or the watch is ended or
 * closed. `onClose` lets its source forget it.
 */
export class TimedCommitWatch implements CommitWatch {
  private heard = false;
  private over = false;
  private waiter: ((value: boolean) => void) | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    waitMs: number,
    private readonly onClose: () => void = () => undefined,
  ) {
    this.timer = setTimeout(() => this.end(), waitMs);
  }

  /** A commit happened. */
  commit(): void {
    this.heard = true;
    this.settle();
  }

  /** No more waiting: the time is up, or the process is stopping. */
  end(): void {
    this.over = true;
    this.settle();
  }

  next(): Promise<boolean> {
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.settle();
    });
  }

  close(): void {
    clearTimeout(this.timer);
    this.end();
    this.onClose();
  }

  /** A waiting `next` hears a commit first (then one more attempt is worth it), else the end. */
  private settle(): void {
    const waiter = this.waiter;
    if (!waiter || (!this.heard && !this.over)) return;
    this.waiter = null;
    const heard = this.heard && !this.over;
    this.heard = false;
    waiter(heard);
  }
}
