import type { ChangeSet } from '../../domain/change-set.js';
import type { Graph, GraphWithLog, NodeId, State } from '../../domain/model.js';
import type { PluginTable } from '../../domain/plugins.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { StoredState } from './stored-state.js';

// What whole-state operations see of the directory, in a module of its own that the snapshot port shares.
export { reachedBy, type Reached, type StoredState } from './stored-state.js';

export interface Transaction<T> {
  result: T;
  /** What to commit; null when the operation changed nothing (nothing is written). */
  changes: ChangeSet | null;
  /**
   * Puts the graph `work` was given back as `work` found it (its drafts' rollback). A store whose
   * commit is refused because another process committed first (PostgreSQL) calls it, catches up
   * and runs `work` again; without it, that store loads the state afresh instead.
   */
  undo?: () => void;
}

export interface Rewrite<T> {
  result: T;
  /** The state that replaces the current one whole; null writes nothing. */
  state: State | null;
  /**
   * The plugin table committed with `state`, as one (restore and transfers carry theirs); absent
   * means none: a reset or an import starts without plugins.
   */
  plugins?: PluginTable;
}

/**
 * The project's policy plugins and their data (docs/plugins.md) as committed with the graph in
 * hand. It is read only when called, so a command that never asks pays nothing for it; a
 * project without plugins answers {}.
 */
export type PluginReader = () => PluginTable;

/**
 * One project's durable state. Reads see one consistent durable state, and never wait for the
 * lock nor hold a writer up (a store that keeps its graph in memory, the server's, holds a read
 * that arrives during a commit's fsync until that fsync ends: its graph already has the commit);
 * `transact` runs its function under the project's exclusive lock and makes its changes durable
 * before it resolves.
 *
 * Plain data at the boundary: every node, edge, initiative and log entry a callback gets, the
 * states `inspect` and `rewrite` give, and everything built from them, are plain objects, arrays
 * and primitives (they survive `structuredClone`) and stay readable after the call resolves and
 * the lock is released. The node map of the graph (or state) a callback gets may be lazy (the
 * file store parses a node when it is first read, from a file it closes when the call is done):
 * it behaves as a record while the call runs, and a caller that passes the map on copies it.
 */
export interface ProjectStore {
  readonly projectId: string;
  /** Where the project's files live, for messages and for `init`'s result. */
  readonly location: string;
  /** The snapshots kept beside the state (spec 2.5). */
  readonly snapshots: SnapshotStore;
  readGraph<T>(read: (graph: Graph, plugins: PluginReader) => T | Promise<T>): Promise<T>;
  /** Like readGraph, with the whole log; its cost grows with history, so only `state`-like reads use it. */
  readState<T>(read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T>;
  /**
   * Like readState, its log holding at least every entry that names node `id` (whose `node` is
   * it, or whose text holds it), in log order, and maybe others: what `history` reads. A store
   * without it is asked for readState.
   */
  readLogNaming?<T>(id: NodeId, read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T>;
  /**
   * Only `changes` are committed: what else `work` does to the graph it gets is not stored. A
   * store may keep that graph for the next calls (the server's keeps it in memory), so work that
   * returns no changes leaves it as it found it (a failed operation rolls its draft back), and
   * work that throws makes the store drop it. `plugins` reads the plugin table under the same
   * lock, so a policy decided on it holds for the commit. A store may run `work` again on a
   * fresh graph when nothing of a first run could have committed (a database connection lost
   * before its COMMIT), so `work` acts only through what it returns. `after`, when given, runs
   * on the result once the commit is durable and the lock released (what a command finishes
   * outside the lock, `take`'s context), still on the graph as committed; the call resolves to
   * what it returns. `prepare`, when given, derives what `work` will read (`next`'s ranking) on
   * the committed state before the lock is taken, where a store loads one then (the file store
   * in a command): under the lock that state is caught up with what others committed meanwhile,
   * and what `prepare` derived follows change by change, so the lock is held for the change alone.
   * A store may not call it (one that loads under the lock, or keeps its state); `work` must not
   * depend on it having run.
   */
  transact<T, R = T>(
    work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>,
    after?: (result: T) => R | Promise<R>,
    prepare?: (graph: Graph) => void,
  ): Promise<R>;
  /**
   * Runs `work` under the exclusive lock with whatever the directory holds (a state that does not
   * load included) and replaces the state whole with what it returns; init, restore and migrate.
   * Refused with STORAGE_ERROR before anything is written: a state that would not load, and one
   * whose (fence_generation, revision) does not move past the displaced state's. An unreadable
   * state is never replaced without a durable snapshot of its files: if `work` took none, the
   * store takes a `corrupt-recovery` snapshot itself.
   */
  rewrite<T>(work: (current: StoredState) => Rewrite<T> | Promise<Rewrite<T>>): Promise<T>;
  /** Replaces the state whole, whatever was there (for tools that seed a project); its plugin table too (default: none). */
  replace(state: State, plugins?: PluginTable): Promise<void>;
  /** What the directory holds, read without writing anything, not even a lock file (`migrate --dry-run`). */
  inspect(): Promise<StoredState>;
}

export interface ProjectStoreFactory {
  open(projectId: string): ProjectStore;
  /** Ids of every project in the storage root (`migrate --all`). */
  list(): Promise<string[]>;
}
