import type { ChangeSet } from '../../domain/change-set.js';
import type { Graph, State } from '../../domain/model.js';

export interface Transaction<T> {
  result: T;
  /** What to commit; null when the operation changed nothing (nothing is written). */
  changes: ChangeSet | null;
}

/**
 * One project's durable state. Reads see one consistent committed state; `transact` runs its
 * function under the project's exclusive lock and makes its changes durable before returning.
 */
export interface ProjectStore {
  readonly projectId: string;
  /** Where the project's files live, for messages and for `init`'s result. */
  readonly location: string;
  /** Whether the project has state (initialized), without validating it. */
  exists(): boolean;
  readGraph<T>(read: (graph: Graph) => T): T;
  /** Like readGraph, with the whole log; its cost grows with history, so only `state`-like reads use it. */
  readState<T>(read: (state: State) => T): T;
  transact<T>(work: (graph: Graph) => Transaction<T>): T;
  /** Creates the state, or replaces it whole (`init --force`, `restore`, `migrate`). */
  replace(state: State): void;
}

export interface ProjectStoreFactory {
  open(projectId: string): ProjectStore;
}
