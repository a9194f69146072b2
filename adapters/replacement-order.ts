import { DomainError } from '../domain/errors.js';
import type { State } from '../domain/model.js';
import { reachedBy, type StoredState } from '../application/ports/project-store.js';
import { assertStateShape } from './state-validation.js';

/** A replacement must load and must move (fence_generation, revision) forward from what it displaces (docs/reliability.md). */
export function assertReplaceable(state: State, current: StoredState, where: string): void {
  assertStateShape(state, where);
  const reached = reachedBy(current);
  if (!reached) return;
  const forward =
    state.fence_generation > reached.fence_generation || (state.fence_generation === reached.fence_generation && state.revision > reached.revision);
  if (!forward) {
    throw new DomainError(
      'STORAGE_ERROR',
      `A replacement state at fence generation ${state.fence_generation}, revision ${state.revision} would go back from ${reached.fence_generation}, ${reached.revision}`,
      { cause: 'EINVALID', path: where, reached: { revision: reached.revision, fence_generation: reached.fence_generation } },
    );
  }
}
