import { applyChangeSet } from '../../domain/change-set.js';
import { projectState, type ProjectState } from '../../domain/project-state.js';
import { DomainError } from '../../domain/errors.js';
import type { Graph, State } from '../../domain/model.js';
import type { RememberedRequest } from '../../domain/request-window.js';
import { pluginTableProblem, type PluginTable } from '../../domain/plugins.js';
import { stateProblem } from '../../domain/state-shape.js';
import type { PluginReader, ProjectStore, ProjectStoreFactory, Rewrite, StoredState, Transaction } from '../../application/ports/project-store.js';
import type { SnapshotMetadata, SnapshotReason, SnapshotStore } from '../../application/ports/snapshot-store.js';

/** Snapshots kept in memory, in the order they were taken; `load` fails like the real store for an unknown id. */
export class InMemorySnapshotStore implements SnapshotStore {
  readonly taken: { metadata: SnapshotMetadata; displaced: StoredState }[] = [];

  async take(reason: SnapshotReason, displaced: Exclude<StoredState, { kind: 'absent' }>, now: string): Promise<SnapshotMetadata> {
    const metadata = { id: `${now.replace(/[-:.]/g, '')}-${this.taken.length}-${reason}`, created_at: now, reason, bytes: 0, sha256: '0'.repeat(64) };
    this.taken.push({ metadata, displaced: structuredClone(displaced) });
    return metadata;
  }

  async list(): Promise<SnapshotMetadata[]> {
    return this.taken.map((snapshot) => snapshot.metadata).reverse();
  }

  async load(id: string): Promise<{ metadata: SnapshotMetadata; state: State; plugins: PluginTable }> {
    const snapshot = this.taken.find((candidate) => candidate.metadata.id === id);
    if (!snapshot || snapshot.displaced.kind !== 'valid') throw new DomainError('STORAGE_ERROR', `No snapshot ${id}`, { cause: 'ENOENT' });
    return { metadata: snapshot.metadata, state: structuredClone(snapshot.displaced.state), plugins: structuredClone(snapshot.displaced.plugins ?? {}) };
  }
}

/**
 * A project store in memory with the real one's contract: reads get a copy; transactions run on
 * a ProjectState kept from one to the next (its indexes survive commits, as in the real stores),
 * dropped when a transaction fails; only a returned change set (or whole state) is kept. Work on
 * the state runs one call at a time, as under the real store's exclusive lock.
 */
export class InMemoryProjectStore implements ProjectStore {
  readonly location = '/memory';
  readonly snapshots = new InMemorySnapshotStore();
  current: StoredState = { kind: 'absent' };
  /** The graph transactions run on, made from `current` when first needed. */
  private kept: ProjectState | null = null;
  /** Every request answered by a commit since the state was last replaced whole, as the real stores keep them beside the state. */
  private answered: RememberedRequest[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly projectId = 'memory') {}

  async readGraph<T>(read: (graph: Graph, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    return read(this.copy(), this.pluginReader());
  }

  async readState<T>(read: (state: State, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    return read(this.copy(), this.pluginReader());
  }

  async transact<T, R = T>(work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>, after?: (result: T) => R | Promise<R>): Promise<R> {
    const result = await this.exclusive(async () => {
      let outcome: Transaction<T>;
      try {
        outcome = await work((this.kept ??= this.indexedCopy()), this.pluginReader());
      } catch (error) {
        this.kept = null;
        throw error;
      }
      const { result, changes } = outcome;
      if (changes) {
        const state = this.copy();
        applyChangeSet(state, structuredClone(changes));
        state.log.push(...structuredClone(changes.log));
        this.answered.push(...structuredClone(changes.requests ?? []));
        this.current = { kind: 'valid', state, plugins: this.plugins() };
      }
      return result;
    });
    return after ? after(result) : (result as unknown as R);
  }

  private indexedCopy(): ProjectState {
    const { log: _log, ...graph } = this.copy();
    return projectState(graph, null, this.answered);
  }

  rewrite<T>(work: (current: StoredState) => Rewrite<T> | Promise<Rewrite<T>>): Promise<T> {
    return this.exclusive(async () => {
      const { result, state, plugins } = await work(structuredClone(this.current));
      if (state) this.store(state, plugins ?? {});
      return result;
    });
  }

  replace(state: State, plugins: PluginTable = {}): Promise<void> {
    return this.exclusive(async () => this.store(state, plugins));
  }

  async inspect(): Promise<StoredState> {
    return structuredClone(this.current);
  }

  private store(state: State, plugins: PluginTable): void {
    const problem = stateProblem(state) ?? pluginTableProblem(plugins);
    if (problem) throw new DomainError('STORAGE_ERROR', problem, { cause: 'EINVALID' });
    this.current = { kind: 'valid', state: structuredClone(state), plugins: structuredClone(plugins) };
    this.kept = null;
    this.answered = [];
  }

  private plugins(): PluginTable {
    return this.current.kind === 'valid' ? structuredClone(this.current.plugins ?? {}) : {};
  }

  private pluginReader(): PluginReader {
    const plugins = this.plugins();
    return () => plugins;
  }

  /** Runs `work` after every earlier exclusive call has settled. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private copy(): State {
    if (this.current.kind !== 'valid') throw new DomainError('STORAGE_ERROR', 'no readable state', { cause: 'ENOENT' });
    return structuredClone(this.current.state);
  }
}

/** In-memory projects by id; `store` is the one services.ts's checkout names. */
export class InMemoryProjectStores implements ProjectStoreFactory {
  private readonly stores = new Map<string, InMemoryProjectStore>();

  get store(): InMemoryProjectStore {
    return this.open('memory');
  }

  open(projectId: string): InMemoryProjectStore {
    let store = this.stores.get(projectId);
    if (!store) this.stores.set(projectId, (store = new InMemoryProjectStore(projectId)));
    return store;
  }

  /** Projects that hold a state, as the file store lists directories it has written. */
  async list(): Promise<string[]> {
    return [...this.stores.values()].filter((store) => store.current.kind !== 'absent').map((store) => store.projectId).sort();
  }
}
