import { edgesOf, nodeIds, plainGraph } from '../domain/node-map.js';
import fs from 'graceful-fs';
import path from 'node:path';
import { DomainError, isDomainError } from '../domain/errors.js';
import type { ChangeSet } from '../domain/change-set.js';
import type { Graph, GraphWithLog, LogEntry, NodeId, State } from '../domain/model.js';
import type { PluginTable } from '../domain/plugins.js';
import { withMembers } from '../domain/project-state.js';
import type { ProjectLock } from '../application/ports/project-lock.js';
import type { PluginReader, ProjectStore, ProjectStoreFactory, Reached, Rewrite, StoredState, Transaction } from '../application/ports/project-store.js';
import { readIfExists, removeLeftoverTempFiles, writeFileAtomic } from './durable-files.js';
import { nodeFileSystem, type FileSystem, type OpenFile } from './file-system.js';
import { bufferSource, checkpointPosition, copyForCheckpoint, decodeCheckpoint, encodeCheckpoint, encodeCheckpointInSlices, encodeCheckpointPieces, salvageHeader, type Checkpoint, type LedgerRef } from './checkpoint-file.js';
import { encodeRecord, entriesNaming, highestReached, keptPositions, readRecords, replayChangeSets, type CheckpointPositions, type GenerationStart } from './ledger-records.js';
import type { CheckpointNodes } from './lazy-nodes.js';
import { blocksBetween, checkedIndex, encodeHistoryIndex, entriesThroughIndex, historyIndexFileOf, isHistoryIndexFile, ledgerIdentity, RECORD_PREFIX_BYTES, type ReplayedTail } from './history-index.js';
import { FsSnapshotStore } from './fs-snapshot-store.js';
import { assertPluginTable, isPluginFile, pluginFileOf, readPluginTable, writePluginTable } from './plugin-table-file.js';
import { assertReplaceable } from './replacement-order.js';
import { invalidFile, storageError } from './storage-error.js';

/**
 * The project's state as one load or commit left it: the checkpoint it started from (its nodes
 * read lazily from the file, which stays open until the call that loaded it is done, or from its
 * bytes read once when kept in memory) and the graph, a ProjectState whose indexes the ledger's change sets
 * and the transactions' drafts keep current.
 */
export interface Loaded {
  checkpoint: Checkpoint;
  graph: Checkpoint['graph'];
  /** Bytes of the ledger that hold complete lines; anything after is a torn append. */
  ledgerEnd: number;
  /**
   * The ledger's size as it was read, torn append included: a hot state is current while the
   * ledger keeps that size, when it holds no torn append (a writer that cuts one and appends a
   * record as long leaves the size as it was). (Its size looked up after the read could include an append the read
   * missed, and that append would then never be seen.)
   */
  sizeRead: number;
  /** Bytes appended since the checkpoint. */
  tail: number;
  /** The checkpoint's own size: rewriting it costs that much, so it is rewritten that much less often. */
  checkpointBytes: number;
  /** The plugin table of the loaded generation, once something asked for it. */
  plugins?: PluginTable;
  /**
   * The log entries of the records this load replayed past the checkpoint, checked and parsed
   * already, for `history` to take rather than read those records again (a command-line process's
   * load; null in a process that keeps its state, and once records were caught up on since).
   */
  replayed: ReplayedTail | null;
}

const CHECKPOINT = 'tasks.json';

/**
 * The states a long-lived process's transactions left, one per project directory, for its next
 * transaction there to start from (`taskdag mcp`, one session an agent): that one catches up
 * with what others committed meanwhile, record by record, and keeps what it derived (`next`'s
 * ranking), instead of loading the checkpoint and its tail afresh. Unlike a server's hot state
 * it is only a head start: every transaction still catches up before and under the lock, as one
 * loaded afresh does. A state is taken out while a call uses it, so two calls never share one.
 */
export class KeptStates {
  private readonly byLocation = new Map<string, Loaded>();

  /** The state kept for `location`, taken out (null: none). */
  take(location: string): Loaded | null {
    const kept = this.byLocation.get(location) ?? null;
    this.byLocation.delete(location);
    return kept;
  }

  /** Keeps `loaded` for `location`; answers the state it displaced (another call's, finished first), for its owner to close. */
  put(location: string, loaded: Loaded): Loaded | null {
    const displaced = this.byLocation.get(location) ?? null;
    this.byLocation.set(location, loaded);
    return displaced === loaded ? null : displaced;
  }
}

/**
 * Something the store could not do that loses nothing and fails no command, but that an operator
 * must hear of: a checkpoint that could not be written (the commit is durable in the ledger; loads
 * replay a longer tail until a later commit writes one).
 */
export interface StoreWarning {
  code: 'CHECKPOINT_WRITE_FAILED';
  message: string;
  details: { path: string; cause: string; project_id: string };
}

export type StoreWarningSink = (warning: StoreWarning) => void;

/** A checkpoint written in the background: its temp file, the ledger position it is taken at, its size. */
interface WrittenCheckpoint {
  temp: string;
  ledger: LedgerRef;
  bytes: number;
}
/**
 * Past this much unreplayed ledger, a commit also writes a new checkpoint. Every command pays for
 * the tail (each record's CRC and JSON, and what it changed derived again), and the commit that
 * crosses the threshold pays the rewrite (which copies what the tail did not change and derives
 * the rest). A mutation's share of the rewrite falls as the threshold grows and the tail's cost
 * grows with it, so their sum per commit is smallest near sqrt(k x checkpoint bytes), k set from
 * their measured costs so that the mean mutation, rewrites included, does not rise when the tail
 * shortens (BENCHMARKS.md, "The checkpoint rewrite copies what the tail did not change";
 * bench/tail-cost.mjs, bench/mutation-mean.mjs); kept between 32 and 192 KiB.
 *
 * A process that keeps its state in memory (the file store's server, every process of the
 * PostgreSQL store) replays the tail once, when it first opens the project (a restart, or a
 * takeover of its ownership), but pays for every rewrite while it serves: the encoding and the
 * collector's work for the copy it holds while commits go on (its pieces outlive several
 * young-generation collections and are promoted), and on PostgreSQL the save's statements and WAL
 * too. So it waits for 8 times the checkpoint's size, at least 4 MiB and at most 16 MiB (a bound
 * on the replay after a restart or a takeover), or half the checkpoint's size when that is larger
 * (BENCHMARKS.md, "The server's checkpoint, a quarter as often", and for PostgreSQL "A PostgreSQL
 * process checkpoints as the file server does").
 */
const CHECKPOINT_BALANCE = 900;
const CHECKPOINT_TAIL_MIN_BYTES = 32 * 1024;
const CHECKPOINT_TAIL_MAX_BYTES = 192 * 1024;
const HOT_CHECKPOINT_TAIL_MIN_BYTES = 4 * 1024 * 1024;
const HOT_CHECKPOINT_REPLAY_BOUND_BYTES = 16 * 1024 * 1024;

/**
 * How many bytes of ledger tail call for a new checkpoint of `checkpointBytes`: `hot` for a
 * process that keeps its state in memory (a server on files, any process on PostgreSQL).
 */
export function checkpointThreshold(checkpointBytes: number, hot: boolean): number {
  if (hot) return Math.max(HOT_CHECKPOINT_TAIL_MIN_BYTES, Math.min(8 * checkpointBytes, HOT_CHECKPOINT_REPLAY_BOUND_BYTES), checkpointBytes / 2);
  const balanced = Math.sqrt(CHECKPOINT_BALANCE * checkpointBytes);
  return Math.min(CHECKPOINT_TAIL_MAX_BYTES, Math.max(CHECKPOINT_TAIL_MIN_BYTES, balanced));
}

/**
 * Local state: `tasks.json` is a checkpoint of the graph, and an append-only ledger holds every
 * committed change set (and so the log) after it, one self-validating record each (see
 * ledger-records.ts). A commit is one fsynced append: its cost follows the change, not the
 * history. An invalid last record (a crash mid-append) is ignored on read and cut off by the next
 * writer; an invalid record followed by valid ones is damage, reported and never cut. Replacing the state whole writes a new ledger
 * under a new name and then the checkpoint that points at it; that rename is the commit.
 * Snapshots live beside the state, in `snapshots/`. Everything read is plain data, parsed whole
 * under the lock, so it outlives the lock and survives `structuredClone`.
 */
export class FsProjectStore implements ProjectStore {
  private readonly checkpointFile: string;
  /** The ledger the last load read, to tell a ledger replaced meanwhile from a missing one. */
  private lastLedgerFile: string | null = null;
  /** With `hot`: the state as last loaded or committed (current while the ledger keeps its `sizeRead`). */
  private hot: Loaded | null = null;
  /**
   * With `hot`, while a commit's fsync runs in the background: the graph in memory already holds
   * the commit, so readers wait for it to be durable (or undone) before they read.
   */
  private syncing: Promise<unknown> | null = null;
  /** With `hot`, while a checkpoint is written in the background (one at a time). */
  private checkpointing: Promise<void> | null = null;
  /** With `hot`, a checkpoint written in the background and durable, which the next commit renames in under its lock. */
  private written: WrittenCheckpoint | null = null;
  readonly snapshots: FsSnapshotStore;

  /**
   * `hot` keeps the state in memory between calls, for a long-lived process that owns the
   * project (the server): a call then costs what it does, not a load. The ledger's size is
   * checked on every call, so a commit by any other process is still seen.
   */
  constructor(
    readonly projectId: string,
    readonly location: string,
    private readonly lock: ProjectLock,
    private readonly files: FileSystem = nodeFileSystem,
    private readonly keepHot = false,
    private readonly warn: StoreWarningSink = () => {},
    private readonly kept: KeptStates | null = null,
  ) {
    this.checkpointFile = path.join(location, CHECKPOINT);
    this.snapshots = new FsSnapshotStore(location, CHECKPOINT, files);
  }

  async readGraph<T>(read: (graph: Graph, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    await this.durable();
    this.assertExists();
    const loaded = this.loadCommitted(() => this.load());
    return this.using(loaded, () => read(loaded.graph, this.pluginReader(loaded)));
  }

  async readState<T>(read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    return this.readWithLog(undefined, read);
  }

  /** As readState, its log holding at least every entry that names node `id` (its `node`, or in its text): a byte search of the ledger, not a parse of it. */
  async readLogNaming<T>(id: NodeId, read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    return this.readWithLog(id, read);
  }

  private async readWithLog<T>(naming: NodeId | undefined, read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    await this.durable();
    this.assertExists();
    const { loaded, log } = this.loadCommitted(() => {
      const loaded = this.load();
      try {
        return { loaded, log: this.readLog(loaded, naming) };
      } catch (error) {
        this.release(loaded);
        throw error;
      }
    });
    // Its node map stays lazy, as readGraph's: `history` reads the log and one node.
    return this.using(loaded, () => read(withMembers(loaded.graph, { log }), this.pluginReader(loaded)));
  }

  async transact<T, R = T>(
    work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>,
    after?: (result: T) => R | Promise<R>,
    prepare?: (graph: Graph) => void,
  ): Promise<R> {
    // Loaded (and prepared) before the lock, as a read is: under it only what other writers
    // appended meanwhile is read (caughtUp), so agents queueing for the lock each hold it for
    // their change alone.
    const early = this.keepHot ? null : this.loadBeforeLock(prepare);
    // A project with a state has its directory: only a first transaction (or a server's) makes it.
    if (early === null) this.ensureDirectory();
    let loaded: Loaded | null = null;
    let kept = false;
    try {
      const result = await this.lock.withLock('exclusive', () => this.transactLocked((loaded = this.caughtUp(early)), work));
      const answer = after ? await after(result) : (result as unknown as R);
      // The graph in hand is what the ledger holds up to its end (transactLocked): the next call may start from it.
      kept = this.keepForNextCall(loaded!);
      return answer;
    } finally {
      if (early && early !== loaded) this.release(early);
      if (loaded && !kept) this.release(loaded);
    }
  }

  /** With `kept`, keeps `loaded` for this process's next transaction (closing one it displaces); false without. */
  private keepForNextCall(loaded: Loaded): boolean {
    if (!this.kept || this.keepHot) return false;
    const displaced = this.kept.put(this.location, loaded);
    if (displaced) this.release(displaced);
    return true;
  }

  /**
   * The committed state as a read loads it, without the lock, with what `prepare` derives from it;
   * null when there is none yet, or it does not load or prepare (the locked load says why).
   */
  private loadBeforeLock(prepare?: (graph: Graph) => void): Loaded | null {
    if (!this.exists()) return null;
    let loaded: Loaded;
    try {
      loaded = this.keptCaughtUp() ?? this.loadCommitted(() => this.load());
    } catch {
      return null;
    }
    try {
      prepare?.(loaded.graph);
      return loaded;
    } catch {
      this.release(loaded);
      return null;
    }
  }

  /**
   * The state this process's last transaction left (KeptStates), caught up with what was
   * committed since, as a load would give it; null when none was kept, or it cannot be caught up
   * (the caller loads afresh).
   */
  private keptCaughtUp(): Loaded | null {
    const kept = this.kept?.take(this.location) ?? null;
    if (!kept) return null;
    let current: Loaded | null = null;
    try {
      current = this.caughtUp(kept);
      return current;
    } catch {
      return null;
    } finally {
      if (current !== kept) this.release(kept);
    }
  }

  /**
   * Under the lock: `early` with the records appended since it was read replayed on it, when the
   * checkpoint still points where it did (same ledger, same position); a fresh load otherwise (a
   * writer wrote a new checkpoint, or replaced the state whole, meanwhile). The replay is what a
   * load does after the checkpoint, split in two: the same change sets, applied in order.
   */
  private caughtUp(early: Loaded | null): Loaded {
    if (early === null) return this.load();
    const { file, bytes } = early.checkpoint.ledger;
    const now = this.currentPosition();
    if (now?.file !== file || now.bytes !== bytes) return this.load();
    const ledgerPath = path.join(this.location, file);
    let appended: Buffer;
    try {
      // The same size means nothing was appended only when every byte read was a complete record:
      // a writer that cut a torn append and appended a record of the torn bytes' length leaves
      // the size as it was, and a state that missed it would commit a revision already taken.
      if (early.sizeRead === early.ledgerEnd && this.files.size(ledgerPath) === early.sizeRead) return early;
      appended = this.readFrom(ledgerPath, early.ledgerEnd);
    } catch (error) {
      throw storageError('Cannot read the project ledger', error, { path: ledgerPath });
    }
    const { records, end } = readRecords(appended, ledgerPath, early.ledgerEnd);
    replayChangeSets(early.graph, records, ledgerPath);
    notePositions(early.checkpoint.nodes, records);
    early.replayed = null;
    early.sizeRead = early.ledgerEnd + appended.length;
    early.ledgerEnd += end;
    early.tail += end;
    return early;
  }

  private async transactLocked<T>(loaded: Loaded, work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>): Promise<T> {
    try {
      // A work that answers at once changes the graph and appends in the same turn, and
      // readers wait for the append's fsync (see `durable`): none sees a change before it is durable.
      let done: Transaction<T> | Promise<Transaction<T>> | null = work(loaded.graph, this.pluginReader(loaded));
      const { result, changes } = done instanceof Promise ? await done : done;
      // Not held through the fsync: its `undo` (for stores that can undo) holds every node the work replaced.
      done = null;
      if (changes) await this.commit(loaded, changes);
      return result;
    } catch (error) {
      // The graph in hand may hold changes that were never committed.
      this.hot = null;
      throw error;
    }
  }

  /** Runs `read` on `loaded`, then releases it. */
  private async using<T>(loaded: Loaded, read: () => T | Promise<T>): Promise<T> {
    try {
      return await read();
    } finally {
      this.release(loaded);
    }
  }

  /**
   * A call is done with what it loaded: a load made for it alone closes its checkpoint file now
   * (a long-lived process opens one descriptor per call and keeps none). A store that keeps its
   * state reads the checkpoint's bytes into memory and holds no file: it closes nothing, since a
   * call still reading a state it dropped meanwhile (after a failed transaction) reads its nodes
   * from those bytes.
   */
  private release(loaded: Loaded): void {
    if (!this.keepHot && loaded !== this.hot) loaded.checkpoint.nodes?.close();
  }

  rewrite<T>(work: (current: StoredState) => Rewrite<T> | Promise<Rewrite<T>>): Promise<T> {
    this.ensureDirectory();
    return this.lock.withLock('exclusive', async () => {
      const current = this.storedState();
      const snapshotsBefore = this.snapshots.taken;
      const rewritten = await work(current);
      if (!rewritten.state) return rewritten.result;
      assertReplaceable(rewritten.state, current, this.checkpointFile);
      assertPluginTable(rewritten.plugins ?? {}, this.location);
      if (current.kind === 'unreadable' && this.snapshots.taken === snapshotsBefore) {
        await this.snapshots.take('corrupt-recovery', current, new Date().toISOString());
      }
      this.writeWhole(rewritten.state, rewritten.plugins ?? {});
      return rewritten.result;
    });
  }

  async replace(state: State, plugins: PluginTable = {}): Promise<void> {
    await this.rewrite(() => ({ result: undefined, state, plugins }));
  }

  inspect(): Promise<StoredState> {
    return this.lock.withLock('shared', () => this.storedState(), { create: false });
  }

  /** Absent only when neither a checkpoint nor a ledger is there: ledgers alone are a damaged state. */
  private storedState(): StoredState {
    const text = this.readCheckpointText();
    if (text === null && this.ledgerFiles().length === 0) return { kind: 'absent' };
    try {
      const loaded = this.load();
      try {
        return { kind: 'valid', state: this.loadState(loaded), plugins: this.pluginReader(loaded)() };
      } finally {
        this.release(loaded);
      }
    } catch (error) {
      // A state that does not parse or whose ledger is gone is unreadable; an OS failure is not.
      const cause = isDomainError(error) ? error.details.cause : undefined;
      if (isDomainError(error) && (cause === 'EINVALID' || cause === 'ENOENT')) {
        return { kind: 'unreadable', text: text ?? '', error, reached: this.reached() };
      }
      throw error;
    }
  }

  /** The highest revision and fence generation any of the files still shows. */
  private reached(): Reached {
    const reached = { revision: 0, fence_generation: 0 };
    const header = this.salvagedHeader();
    if (Number.isSafeInteger(header?.revision)) reached.revision = header!.revision as number;
    if (Number.isSafeInteger(header?.fence_generation)) reached.fence_generation = header!.fence_generation as number;
    for (const name of this.ledgerFiles()) {
      const bytes = readIfExists(this.files, path.join(this.location, name));
      if (!bytes) continue;
      const inLedger = highestReached(bytes);
      reached.revision = Math.max(reached.revision, inLedger.revision);
      reached.fence_generation = Math.max(reached.fence_generation, inLedger.fence_generation);
    }
    return reached;
  }

  /** Writes a new ledger generation holding the whole log and its plugin table, then the checkpoint that points at them. */
  private writeWhole(state: State, plugins: PluginTable): void {
    try {
      const { log, ...graph } = state;
      const ledgerFile = `ledger.${this.highestGeneration() + 1}.jsonl`;
      // The base record carries what survives the checkpoint's loss (ledger-records.ts, GenerationStart).
      const base: ChangeSet & GenerationStart = {
        revision: graph.revision,
        log,
        nodes: {},
        notes: [],
        edges: [],
        initiatives: {},
        fence_generation: graph.fence_generation,
        ...(isEmptyGraph(graph) ? { starts_empty: true as const } : {}),
      };
      const line = encodeRecord(base);
      removeLeftoverTempFiles(this.files, this.location);
      writeFileAtomic(this.files, path.join(this.location, ledgerFile), line);
      writePluginTable(this.files, this.location, ledgerFile, plugins);
      writeFileAtomic(this.files, this.checkpointFile, encodeCheckpoint(graph, { file: ledgerFile, bytes: line.length }));
      this.extendHistoryIndex(ledgerFile, line.length, line);
      this.removeStaleLedgers(ledgerFile);
    } catch (error) {
      throw storageError('Cannot write the project state', error, { path: this.location });
    }
  }

  private ensureDirectory(): void {
    try {
      this.files.makeDirectory(this.location);
    } catch (error) {
      throw storageError('Cannot create the project directory', error, { path: this.location });
    }
  }

  /**
   * Reads take no lock, so they never wait for a writer and never hold one up: the checkpoint is
   * only ever replaced by a rename, and ledger records prove themselves, so a load sees one
   * committed state (an append in progress is an invalid last record, which it ignores). If a
   * whole-state rewrite removed the ledger it was reading, the checkpoint names another one by
   * then: it loads again.
   */
  private loadCommitted<T>(load: () => T): T {
    for (let attempt = 1; ; attempt++) {
      try {
        return load();
      } catch (error) {
        const replaced = isDomainError(error) && error.details.cause === 'ENOENT' && this.salvagedHeader()?.ledger?.file !== this.lastLedgerFile;
        if (!replaced || attempt >= 5) throw error;
      }
    }
  }

  /** The checkpoint with the ledger replayed on it (kept, when hot, while the ledger does not change). */
  private load(): Loaded {
    // Only a state read to a record's end is current while the size holds (caughtUp says why).
    if (this.hot && this.hot.sizeRead === this.hot.ledgerEnd && this.ledgerSize(this.hot) === this.hot.sizeRead) return this.hot;
    const checkpoint = this.openCheckpoint();
    this.lastLedgerFile = checkpoint.ledger.file;
    let loaded: Loaded;
    try {
      loaded = this.replayLedger(checkpoint);
    } catch (error) {
      checkpoint.nodes?.close();
      throw error;
    }
    if (this.keepHot) this.hot = loaded;
    return loaded;
  }

  /** The size of the ledger a load read; -1 once it is gone (a whole-state rewrite replaced it). */
  private ledgerSize(loaded: Loaded): number {
    try {
      return this.files.size(path.join(this.location, loaded.checkpoint.ledger.file));
    } catch {
      return -1;
    }
  }

  private replayLedger(checkpoint: Checkpoint & { bytes: number }): Loaded {
    const ledgerPath = path.join(this.location, checkpoint.ledger.file);
    let bytes: Buffer;
    try {
      bytes = this.readFrom(ledgerPath, checkpoint.ledger.bytes);
    } catch (error) {
      throw storageError('Cannot read the project ledger', error, { path: ledgerPath });
    }
    const graph = checkpoint.graph;
    const { records, end } = readRecords(bytes, ledgerPath, checkpoint.ledger.bytes);
    replayChangeSets(graph, records, ledgerPath);
    notePositions(checkpoint.nodes, records);
    const replayed = this.keepHot ? null : { from: checkpoint.ledger.bytes, to: checkpoint.ledger.bytes + end, logs: records.map((changes) => changes.log) };
    return { checkpoint, graph, ledgerEnd: checkpoint.ledger.bytes + end, sizeRead: checkpoint.ledger.bytes + bytes.length, tail: end, checkpointBytes: checkpoint.bytes, replayed };
  }

  /**
   * The checkpoint, read as it is used: a command reads the parts it needs from the file it
   * opened (which stays what it was if a writer renames a new one in), closed when the call is
   * done (`release`). A process that keeps its state reads the file's bytes once, and parses
   * each node when it is first read.
   */
  private openCheckpoint(): Checkpoint & { bytes: number } {
    let file: OpenFile | null = null;
    try {
      const source = this.keepHot ? bufferSource(this.files.read(this.checkpointFile)) : (file = this.files.open(this.checkpointFile));
      // Kept in memory, its nodes stay the file's bytes until read (a server at 50k nodes reads a
      // few; parsing them all made a heap of 80 MB more for the collector to mark), and a
      // checkpoint copies what was never read from those bytes (copyForCheckpoint).
      const checkpoint = decodeCheckpoint(source, this.checkpointFile);
      return { ...checkpoint, bytes: source.size };
    } catch (error) {
      file?.close();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw this.noState();
      throw storageError('Cannot read the project state', error, { path: this.checkpointFile });
    }
  }

  private readCheckpointText(): string | null {
    try {
      return readIfExists(this.files, this.checkpointFile)?.toString('utf8') ?? null;
    } catch (error) {
      throw storageError('Cannot read the project state', error, { path: this.checkpointFile });
    }
  }

  private exists(): boolean {
    return this.files.exists(this.checkpointFile);
  }

  /** Reads of a project that was never initialized fail before creating anything for it. */
  private assertExists(): void {
    if (!this.exists()) throw this.noState();
  }

  private noState(): DomainError {
    const details = { cause: 'ENOENT', path: this.checkpointFile, project_id: this.projectId };
    const ledgers = this.ledgerFiles();
    if (ledgers.length === 0) return new DomainError('STORAGE_ERROR', `Project ${this.projectId} has no state: run taskdag init`, details);
    return new DomainError(
      'STORAGE_ERROR',
      `${this.checkpointFile} is missing beside ${ledgers.join(', ')}: the state is damaged (taskdag init keeps these files as a corrupt-recovery snapshot and starts afresh; taskdag restore of that snapshot then replays the ledger, if it reaches back to the project's creation)`,
      { ...details, ledgers },
    );
  }

  /** Ledger generation files present, whatever the checkpoint says. */
  private ledgerFiles(): string[] {
    try {
      return this.files.list(this.location).filter((name) => generationOf(name) !== null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError('Cannot list the project directory', error, { path: this.location });
    }
  }

  /** Past every generation present or named by the checkpoint (readable or not): a name is never reused. */
  private highestGeneration(): number {
    const named = this.salvagedHeader()?.ledger?.file;
    const names = [...this.ledgerFiles(), typeof named === 'string' ? named : ''];
    return Math.max(0, ...names.map((name) => generationOf(name) ?? 0));
  }

  private salvagedHeader(): ReturnType<typeof salvageHeader> {
    const bytes = readIfExists(this.files, this.checkpointFile);
    return bytes ? salvageHeader(bytes) : null;
  }

  /** Reads the loaded generation's plugin table on first call only (kept with a hot state). */
  private pluginReader(loaded: Loaded): PluginReader {
    return () => (loaded.plugins ??= readPluginTable(this.files, this.location, loaded.checkpoint.ledger.file));
  }

  private loadState(loaded: Loaded): State {
    // A whole state is handed out whole: every node parsed, nothing lazy behind it.
    return { ...plainGraph(loaded.graph), log: this.readLog(loaded) };
  }

  /** The whole log, or (`naming`) at least every entry that names that node (ledger-records.ts, `entriesNaming`; the history index first). */
  private readLog(loaded: Loaded, naming?: NodeId): LogEntry[] {
    if (naming !== undefined) {
      const indexed = this.entriesByIndex(loaded, naming);
      if (indexed) return indexed;
    }
    const ledgerPath = path.join(this.location, loaded.checkpoint.ledger.file);
    let text: Buffer;
    try {
      text = this.readFrom(ledgerPath, 0).subarray(0, loaded.ledgerEnd);
    } catch (error) {
      throw storageError('Cannot read the project ledger', error, { path: ledgerPath });
    }
    if (naming !== undefined) {
      const { entries, end } = entriesNaming(text, ledgerPath, naming);
      if (end !== text.length) throw invalidFile(ledgerPath, `the ledger record at byte ${end}, before the checkpoint's position, is invalid`);
      return entries;
    }
    const log: LogEntry[] = [];
    const { records, end } = readRecords(text, ledgerPath);
    if (end !== text.length) throw invalidFile(ledgerPath, `the ledger record at byte ${end}, before the checkpoint's position, is invalid`);
    for (const changes of records) for (const entry of changes.log) log.push(entry);
    return log;
  }

  /**
   * At least every entry that names node `id`, read through the generation's history index
   * (history-index.ts): the blocks its filters let through, each checked against its CRC-32, and
   * the records after the index's end as readLog reads them. Null when the index cannot answer
   * (none, damaged, of another ledger, or past what this load read): readLog reads the whole
   * ledger instead, which gives the same entries.
   */
  private entriesByIndex(loaded: Loaded, id: NodeId): LogEntry[] | null {
    const ledgerPath = path.join(this.location, loaded.checkpoint.ledger.file);
    let index: OpenFile | null = null;
    let ledger: OpenFile | null = null;
    try {
      index = this.files.open(path.join(this.location, historyIndexFileOf(loaded.checkpoint.ledger.file)));
      ledger = this.files.open(ledgerPath);
      if (ledger.size < loaded.ledgerEnd) return null;
      return entriesThroughIndex(index.bytes.bind(index), index.size, ledger.bytes.bind(ledger), loaded.ledgerEnd, ledgerPath, id, loaded.replayed);
    } catch (error) {
      // Damage in what it read is reported as the whole read reports it; a file it cannot read (no index) reads the whole ledger.
      if (isDomainError(error) || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      return null;
    } finally {
      index?.close();
      ledger?.close();
    }
  }

  /**
   * Extends the history index of `ledgerFile` to the record boundary `upTo` (indexing the records
   * after its end; building it whole when there is none that checks, or it is of another ledger),
   * `ledger` the ledger's bytes when in hand. Derived data, written without a sync: a file a crash
   * tore fails its checks, and `history` then reads the whole ledger. Nor does an OS failure fail
   * the commit it follows: the next checkpoint rewrite extends it from where it is.
   */
  private extendHistoryIndex(ledgerFile: string, upTo: number, ledger: Buffer | null = null): void {
    try {
      const steps = this.historyIndexExtended(ledgerFile, upTo, ledger);
      let step = steps.next();
      while (!step.done) step = steps.next();
      if (step.value) this.writeHistoryIndex(ledgerFile, step.value, `${process.pid}`);
    } catch (error) {
      if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    }
  }

  /**
   * As extendHistoryIndex, a slice of the ledger between two turns of the event loop: a server's,
   * after the checkpoint it writes in the background (the records since its index's end are the
   * 4 to 30 MiB of ledger a hot store's checkpoint waits for).
   */
  private async extendHistoryIndexInBackground(ledgerFile: string, upTo: number): Promise<void> {
    try {
      const steps = this.historyIndexExtended(ledgerFile, upTo, null);
      let step = steps.next();
      for (; !step.done; step = steps.next()) await new Promise((resolve) => setImmediate(resolve));
      if (!step.value) return;
      this.writeHistoryIndex(ledgerFile, step.value, `${process.pid}-background`);
      // A whole-state write between two slices (its own process, no lock held here) removed this
      // ledger and swept its index: checked after the write, so an index of a gone ledger never stays.
      if (!this.files.exists(path.join(this.location, ledgerFile))) this.tryRemove(path.join(this.location, historyIndexFileOf(ledgerFile)));
    } catch (error) {
      if (typeof (error as NodeJS.ErrnoException).code !== 'string') this.backgroundCheckpointFailed(error);
    }
  }

  /** The history index of `ledgerFile` extended to `upTo`, built a slice of the ledger at a time; null when it already ends there. */
  private *historyIndexExtended(ledgerFile: string, upTo: number, ledger: Buffer | null): Generator<void, Buffer | null> {
    const read = (start: number, end: number) => (ledger ? ledger.subarray(start, end) : this.readLedgerRange(ledgerFile, start, end));
    const identity = ledgerIdentity(read(0, RECORD_PREFIX_BYTES));
    if (identity === null) return null;
    const written = readIfExists(this.files, path.join(this.location, historyIndexFileOf(ledgerFile)));
    const checked = written ? checkedIndex(written) : null;
    const previous = checked && checked.identity === identity && checked.covered <= upTo ? checked : null;
    const base = previous?.covered ?? 0;
    const { blocks, covered } = yield* blocksBetween(read, base, upTo, identity, previous?.count ?? 0);
    return previous && covered === base ? null : encodeHistoryIndex(identity, covered, blocks, previous);
  }

  /** Replaces the history index of `ledgerFile` (temp file `tag`, rename; no sync: see extendHistoryIndex). */
  private writeHistoryIndex(ledgerFile: string, bytes: Buffer, tag: string): void {
    const indexPath = path.join(this.location, historyIndexFileOf(ledgerFile));
    const temp = `${indexPath}.tmp-${tag}`;
    try {
      this.files.write(temp, bytes, 0o600);
      this.files.rename(temp, indexPath);
    } catch (error) {
      this.tryRemove(temp);
      throw error;
    }
  }

  /** Bytes [start, end) of a ledger file. */
  private readLedgerRange(ledgerFile: string, start: number, end: number): Buffer {
    const file = this.files.open(path.join(this.location, ledgerFile));
    try {
      return file.bytes(start, end);
    } finally {
      file.close();
    }
  }

  /**
   * Appends and syncs the change set. A hot store (a server) syncs off the event loop, so it
   * parses and queues the next requests meanwhile (the next group commit), while readers wait
   * (`durable`). Everything after the sync settles, the flag cleared, the hot state kept or
   * dropped, runs in that one turn: a reader resumes on a durable state, or reloads one.
   */
  private async commit(loaded: Loaded, changes: ChangeSet): Promise<void> {
    const ledgerPath = path.join(this.location, loaded.checkpoint.ledger.file);
    const positions = positionsOfChanges(loaded.checkpoint.nodes, changes);
    const line = encodeRecord(positions ? { ...changes, checkpoint_positions: positions } : changes);
    try {
      // Cut a torn append left by a crashed writer, then append at the end of what is valid.
      this.files.writeAt(ledgerPath, line, loaded.ledgerEnd);
      if (this.keepHot) await (this.syncing = this.files.syncInBackground(ledgerPath));
      else this.files.sync(ledgerPath);
    } catch (error) {
      this.tryCut(ledgerPath, loaded.ledgerEnd);
      // The graph in hand holds changes that are not durable.
      this.hot = null;
      throw storageError('Cannot append to the project ledger', error, { path: ledgerPath });
    } finally {
      this.syncing = null;
    }
    const due = loaded.tail + line.length >= checkpointThreshold(loaded.checkpointBytes, this.keepHot);
    if (!this.keepHot) {
      if (due) this.writeCheckpoint(loaded, loaded.ledgerEnd + line.length);
      // The graph in hand now holds the append: a state kept for the next call reads on from after it.
      this.keep(loaded, line.length);
      return;
    }
    if (this.hot !== loaded) return;
    this.keep(loaded, line.length);
    if (this.written) this.installCheckpoint(loaded, this.written);
    else if (due && !this.checkpointing) {
      this.checkpointing = this.checkpointInBackground(loaded).finally(() => {
        this.checkpointing = null;
      });
    }
  }

  /**
   * Resolves once no checkpoint is being written in the background, and one written is renamed
   * in (under the lock): for tests, and for a process that stops.
   */
  async checkpointed(): Promise<void> {
    while (this.checkpointing) await this.checkpointing;
    const written = this.written;
    if (written) await this.lock.withLock('exclusive', () => this.installCheckpoint(this.hot, written));
  }

  /**
   * A hot store's checkpoint, written while commits go on (issue 24: a 60 MB rewrite on the event
   * loop stalled a 50k-node server for 220-420 ms): a consistent copy of the graph as this commit
   * left it, taken now in a few milliseconds; then encoded in slices between turns of the event
   * loop, and written and synced on the thread pool. The next commit renames it in under its lock
   * (installCheckpoint). A failure loses nothing: it is a warning, and the next commit past the
   * threshold tries again.
   */
  private async checkpointInBackground(loaded: Loaded): Promise<void> {
    const ledger: LedgerRef = { file: loaded.checkpoint.ledger.file, bytes: loaded.ledgerEnd };
    const copy = copyForCheckpoint(loaded.graph);
    const temp = `${this.checkpointFile}.tmp-${process.pid}-background`;
    try {
      const pieces = await encodeCheckpointInSlices(copy, ledger, loaded.checkpoint.nodes);
      await this.files.writeInBackground(temp, pieces, 0o600);
      this.written = { temp, ledger, bytes: pieces.reduce((sum, piece) => sum + piece.length, 0) };
    } catch (error) {
      this.tryRemove(temp);
      this.backgroundCheckpointFailed(error);
      return;
    }
    // The records up to the checkpoint's position are committed: the history index may cover them whenever it is written.
    await this.extendHistoryIndexInBackground(ledger.file, ledger.bytes);
  }

  /**
   * Under the lock: renames a checkpoint written in the background over the current one if that
   * one is of the same ledger at an earlier position (a whole rewrite, or another writer's newer
   * checkpoint, meanwhile wins: it is dropped), and counts the hot state's tail from it.
   */
  private installCheckpoint(loaded: Loaded | null, written: WrittenCheckpoint): void {
    this.written = null;
    try {
      const current = this.currentPosition();
      const follows = current?.file === written.ledger.file && typeof current.bytes === 'number' && current.bytes < written.ledger.bytes;
      if (!follows || !this.files.exists(written.temp)) return this.tryRemove(written.temp);
      this.files.rename(written.temp, this.checkpointFile);
      this.files.syncDirectory(this.location);
    } catch (error) {
      this.tryRemove(written.temp);
      return this.backgroundCheckpointFailed(error);
    }
    if (loaded && loaded === this.hot && loaded.checkpoint.ledger.file === written.ledger.file) {
      loaded.tail = loaded.ledgerEnd - written.ledger.bytes;
      loaded.checkpointBytes = written.bytes;
    }
  }

  /** As checkpointFailed; a bug is reported too (cause EBUG) rather than thrown where no caller waits for it. */
  private backgroundCheckpointFailed(error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code;
    this.checkpointFailed(typeof code === 'string' ? error : Object.assign(new Error(String(error)), { code: 'EBUG' }));
  }

  /** The ledger position of the checkpoint on disk, from its first lines only. */
  private currentPosition(): ReturnType<typeof checkpointPosition> {
    let file: OpenFile | null = null;
    try {
      file = this.files.open(this.checkpointFile);
      return checkpointPosition(file);
    } catch {
      return null;
    } finally {
      file?.close();
    }
  }

  private tryRemove(file: string): void {
    try {
      this.files.remove(file);
    } catch {
      // A leftover temp file is removed by the next writer.
    }
  }

  /** Resolves once no commit is waiting for its fsync: what a reader then sees is durable. */
  private async durable(): Promise<void> {
    while (this.syncing) await this.syncing.catch(() => undefined);
  }

  /** The hot state after its own commit: the graph in hand is now what the files hold (the append cut any torn one). */
  private keep(loaded: Loaded, appended: number): void {
    loaded.ledgerEnd += appended;
    loaded.sizeRead = loaded.ledgerEnd;
    loaded.tail += appended;
  }

  /**
   * A failed checkpoint loses nothing (the ledger has it all), so it fails no commit: it is
   * reported as a warning, and the next commit tries again. Its size, or null.
   */
  private writeCheckpoint(loaded: Loaded, ledgerBytes: number): void {
    try {
      removeLeftoverTempFiles(this.files, this.location);
      const ledger = { file: loaded.checkpoint.ledger.file, bytes: ledgerBytes };
      loaded.checkpoint.nodes?.readWhole();
      writeFileAtomic(this.files, this.checkpointFile, encodeCheckpointPieces(loaded.graph, ledger, loaded.checkpoint.nodes));
    } catch (error) {
      this.checkpointFailed(error);
      return;
    }
    this.extendHistoryIndex(loaded.checkpoint.ledger.file, ledgerBytes);
  }

  /** An OS failure is an operator's problem to hear of; anything else is a bug, and is thrown. */
  private checkpointFailed(error: unknown): void {
    const cause = (error as NodeJS.ErrnoException).code;
    if (typeof cause !== 'string') throw error;
    this.warn({
      code: 'CHECKPOINT_WRITE_FAILED',
      message: `The commit is durable, but the checkpoint ${this.checkpointFile} could not be written (${cause}): loads replay more of the ledger until a later commit writes it`,
      details: { path: this.checkpointFile, cause, project_id: this.projectId },
    });
  }

  /** The ledger's bytes from `start`; a ledger shorter than its checkpoint says is damaged. */
  private readFrom(file: string, start: number): Buffer {
    const size = this.files.size(file);
    if (size < start) throw invalidFile(file, `it is shorter (${size} bytes) than its checkpoint says (${start})`);
    return this.files.readFrom(file, start);
  }

  /** After a failed append: the torn bytes are ignored by readers and cut by the next writer anyway. */
  private tryCut(file: string, length: number): void {
    try {
      this.files.writeAt(file, Buffer.alloc(0), length);
    } catch {
      // Nothing more to do: the next writer cuts them.
    }
  }

  /** Stale ledgers go before stale plugin tables (and history indexes): a reader missing a table then sees its ledger gone too. */
  private removeStaleLedgers(current: string): void {
    for (const name of this.ledgerFiles()) if (name !== current) this.files.remove(path.join(this.location, name));
    const table = pluginFileOf(current);
    const index = historyIndexFileOf(current);
    for (const name of this.files.list(this.location)) if ((isPluginFile(name) && name !== table) || (isHistoryIndexFile(name) && name !== index)) this.files.remove(path.join(this.location, name));
    removeLeftoverTempFiles(this.files, this.location);
    this.files.syncDirectory(this.location);
  }
}

export class FsProjectStoreFactory implements ProjectStoreFactory {
  /** `lockFor` gives the lock of a project's state directory (FlockProjectLock on its `lock` file in the CLI). */
  private readonly opened = new Map<string, FsProjectStore>();

  /** `hot` (a server): each project's store is made once and keeps its state in memory. `warn` hears of StoreWarnings. */
  constructor(
    private readonly home: string,
    private readonly lockFor: (location: string) => ProjectLock,
    private readonly files: FileSystem = nodeFileSystem,
    private readonly hot = false,
    private readonly warn: StoreWarningSink = () => {},
    private readonly kept: KeptStates | null = null,
  ) {}

  /** The state directory of project `projectId`. */
  locationOf(projectId: string): string {
    return path.join(this.projects, projectId);
  }

  open(projectId: string): FsProjectStore {
    const known = this.opened.get(projectId);
    if (known) return known;
    const location = this.locationOf(projectId);
    const store = new FsProjectStore(projectId, location, this.lockFor(location), this.files, this.hot, this.warn, this.kept);
    if (this.hot) this.opened.set(projectId, store);
    return store;
  }

  async list(): Promise<string[]> {
    try {
      return fs
        .readdirSync(this.projects, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError('Cannot list the projects', error, { path: this.projects });
    }
  }

  private get projects(): string {
    return path.join(this.home, 'projects');
  }
}

function isEmptyGraph(graph: Graph): boolean {
  return nodeIds(graph).length === 0 && edgesOf(graph).length === 0 && Object.keys(graph.initiatives).length === 0;
}

function generationOf(ledgerFile: string | undefined): number | null {
  const match = ledgerFile ? /^ledger\.(\d+)\.jsonl$/.exec(ledgerFile) : null;
  return match ? Number(match[1]) : null;
}

/**
 * Where the nodes `changes` writes, appends notes to or changes edges of are in the checkpoint
 * `nodes` was read from, those it knows without a lookup (`knownPosition`): what the record keeps
 * for the loads that replay it over that file (ledger-records.ts, CheckpointPositions). Null when
 * it knows none, or the file has no identity.
 */
function positionsOfChanges(nodes: CheckpointNodes | null, changes: ChangeSet): CheckpointPositions | null {
  if (nodes?.identity == null) return null;
  const at: (NodeId | number)[] = [];
  const noted = new Set<NodeId>();
  const note = (id: NodeId) => {
    const position = noted.has(id) ? undefined : nodes.knownPosition(id);
    if (position === undefined) return;
    at.push(id, position);
    noted.add(id);
  };
  for (const id of Object.keys(changes.nodes)) note(id);
  for (const { node } of changes.notes) note(node);
  for (const { edge } of changes.edges) {
    note(edge.from);
    note(edge.to);
  }
  return at.length > 0 ? { of: nodes.identity, at } : null;
}

/** Hands the checkpoint's lazy nodes the positions the records replayed over it keep (only those kept for that very file). */
function notePositions(nodes: CheckpointNodes | null, records: readonly ChangeSet[]): void {
  const identity = nodes?.identity;
  if (identity == null) return;
  for (const record of records) {
    const at = keptPositions(record, identity);
    if (at) nodes!.notePositions(at);
  }
}
