import { applyChangeSet } from '../../domain/change-set.js';
import { DomainError } from '../../domain/errors.js';
import type { Graph, State } from '../../domain/model.js';
import { stateProblem } from '../../domain/state-shape.js';
import type { ProjectStore, ProjectStoreFactory, Rewrite, StoredState, Transaction } from '../../application/ports/project-store.js';
import type { SnapshotMetadata, SnapshotReason, SnapshotStore } from '../../application/ports/snapshot-store.js';

/** Snapshots kept in memory, in the order they were taken; `load` fails like the real store for an unknown id. */
export class InMemorySnapshotStore implements SnapshotStore {
  readonly taken: { metadata: SnapshotMetadata; displaced: StoredState }[] = [];

  take(reason: SnapshotReason, displaced: Exclude<StoredState, { kind: 'absent' }>, now: string): SnapshotMetadata {
    const metadata = { id: `${now.replace(/[-:.]/g, '')}-${this.taken.length}-${reason}`, created_at: now, reason, bytes: 0, sha256: '0'.repeat(64) };
    this.taken.push({ metadata, displaced: structuredClone(displaced) });
    return metadata;
  }

  list(): SnapshotMetadata[] {
    return this.taken.map((snapshot) => snapshot.metadata).reverse();
  }

  load(id: string): { metadata: SnapshotMetadata; state: State } {
    const snapshot = this.taken.find((candidate) => candidate.metadata.id === id);
    if (!snapshot || snapshot.displaced.kind !== 'valid') throw new DomainError('STORAGE_ERROR', `No snapshot ${id}`, { cause: 'ENOENT' });
    return { metadata: snapshot.metadata, state: structuredClone(snapshot.displaced.state) };
  }
}

/**
 * A project store in memory with the real one's contract: work runs on a copy, and only a
 * returned change set (or whole state) is kept, so a failure changes nothing.
 */
export class InMemoryProjectStore implements ProjectStore {
  readonly location = '/memory';
  readonly snapshots = new InMemorySnapshotStore();
  current: StoredState = { kind: 'absent' };

  constructor(readonly projectId = 'memory') {}

  readGraph<T>(read: (graph: Graph) => T): T {
    return read(this.copy());
  }

  readState<T>(read: (state: State) => T): T {
    return read(this.copy());
  }

  transact<T>(work: (graph: Graph) => Transaction<T>): T {
    const { result, changes } = work(this.copy());
    if (changes) {
      const state = this.copy();
      applyChangeSet(state, changes);
      state.log.push(...changes.log);
      this.current = { kind: 'valid', state };
    }
    return result;
  }

  rewrite<T>(work: (current: StoredState) => Rewrite<T>): T {
    const { result, state } = work(structuredClone(this.current));
    if (state) this.replace(state);
    return result;
  }

  replace(state: State): void {
    const problem = stateProblem(state);
    if (problem) throw new DomainError('STORAGE_ERROR', problem, { cause: 'EINVALID' });
    this.current = { kind: 'valid', state: structuredClone(state) };
  }

  inspect(): StoredState {
    return structuredClone(this.current);
  }

  private copy(): State {
    if (this.current.kind !== 'valid') throw new DomainError('STORAGE_ERROR', 'no readable state', { cause: 'ENOENT' });
    return structuredClone(this.current.state);
  }
}

export class InMemoryProjectStores implements ProjectStoreFactory {
  readonly store = new InMemoryProjectStore();

  open(): InMemoryProjectStore {
    return this.store;
  }

  list(): string[] {
    return [this.store.projectId];
  }
}
