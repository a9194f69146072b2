import type { CommitSignals } from './ports/commit-signals.js';

/**
 * A call that found nothing to do and may wait for the project to change (`next --wait`): `attempt`
 * again after each commit that `worthTrying` (a read, no lock) says could have given it something,
 * until `found` or `waitMs` is over; then its last answer (the one that found nothing, its shape
 * unchanged). The watch begins before the first attempt, so a commit between that attempt and
 * the wait is not missed.
 */
export async function untilFound<T>(
  signals: CommitSignals,
  project: string,
  waitMs: number,
  steps: { attempt(): Promise<T>; found(result: T): boolean; worthTrying(): Promise<boolean> },
): Promise<T> {
  const watch = signals.watch(project, waitMs);
  try {
    let result = await steps.attempt();
    while (!steps.found(result) && (await watch.next())) {
      if (await steps.worthTrying()) result = await steps.attempt();
    }
    return result;
  } finally {
    watch.close();
  }
}
