import type { CommitSignals } from './ports/commit-signals.js';

/**
 * A call that found nothing to do and may wait for the project to change (`next --wait`):
 * `attempt` once, then, in `line` with the other waits that would find the same work, again
 * after each look (a read, no lock) that `worthTrying` says could now give it something, until
 * `found`, `waitMs` is over or `signal` says its caller has gone; then its last answer (the one that found nothing, its shape
 * unchanged). It joins the line after the first attempt: a commit made in between is not missed,
 * since the first in a line looks as soon as it is first (ports/commit-signals.ts).
 */
export async function untilFound<T>(
  signals: CommitSignals,
  project: string,
  waitMs: number,
  line: string,
  steps: { attempt(): Promise<T>; found(result: T): boolean; worthTrying(): Promise<boolean> },
  signal?: AbortSignal,
): Promise<T> {
  const started = Date.now();
  let result = await steps.attempt();
  if (steps.found(result)) return result;
  const left = waitMs - (Date.now() - started);
  if (left <= 0) return result;
  if (signal?.aborted) return result;
  const watch = signals.watch(project, left, line);
  // A caller gone leaves the line at once: it would otherwise stay first, and claim for nobody the next task made ready.
  const gone = () => watch.close();
  signal?.addEventListener('abort', gone, { once: true });
  try {
    while (!steps.found(result) && (await watch.next())) {
      if ((await steps.worthTrying()) && !signal?.aborted) result = await steps.attempt();
    }
    return result;
  } finally {
    signal?.removeEventListener('abort', gone);
    watch.close();
  }
}
