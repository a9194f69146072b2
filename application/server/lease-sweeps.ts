import type { OperationDispatcher } from '../operation.js';
import { isOwnedElsewhere } from '../ports/project-owners.js';
import type { ProjectStoreFactory } from '../ports/project-store.js';

/** What one scheduled pass did in one project: the claims it released, or why it could not sweep there. */
export type SweepOutcome = { project: string; released: number } | { project: string; error: string };

/**
 * One pass of the server's scheduled lease sweep (server.json `leaseSweepMs`): `sweep-leases`
 * as `recovery` in every project the store holds, through the server's own dispatcher, so each
 * sweep is one commit like any other request and its live event goes out. A project that cannot
 * be swept (its state unreadable) is reported and the others are still swept. A project another
 * server process owns (PostgreSQL) is left to that process's sweep.
 */
export async function sweepEveryProject(dispatcher: OperationDispatcher, stores: ProjectStoreFactory): Promise<SweepOutcome[]> {
  const outcomes: SweepOutcome[] = [];
  for (const project of await stores.list()) {
    try {
      const result = (await dispatcher.dispatch({ project, operation: 'sweep-leases', args: {}, agent: 'recovery' })) as { released: unknown[] };
      outcomes.push({ project, released: result.released.length });
    } catch (error) {
      if (isOwnedElsewhere(error)) continue;
      outcomes.push({ project, error: (error as { code?: string }).code ?? 'CLI_INTERNAL_ERROR' });
    }
  }
  return outcomes;
}
