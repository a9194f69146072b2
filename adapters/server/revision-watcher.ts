import type { ProjectStoreFactory } from '../../application/ports/project-store.js';
import { isDomainError } from '../../domain/errors.js';
import { revisionOf } from './board-routes.js';
import type { SseHub } from './sse-hub.js';

/**
 * The local board's live events. `server run` announces the commits it makes itself; beside
 * `taskdag ui` it is the command line, in other processes, that commits. So every `intervalMs`
 * the revision of each project someone follows is read (a hot store only stats its ledger when
 * nothing changed) and published; the hub drops a revision it already announced.
 */
export class RevisionWatcher {
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly stores: ProjectStoreFactory,
    private readonly hub: SseHub,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const project of this.hub.followed) {
        try {
          this.hub.publish(project, await revisionOf(this.stores, project));
        } catch (error) {
          // A state that stopped loading: the snapshot route reports it when the board refetches.
          if (!isDomainError(error)) throw error;
        }
      }
    } finally {
      this.polling = false;
    }
  }
}
