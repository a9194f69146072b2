import type { Pool, PoolClient } from 'pg';
import { plainGraph } from '../../domain/node-map.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { ChangeSet } from '../../domain/change-set.js';
import type { Graph, GraphWithLog, LogEntry, State } from '../../domain/model.js';
import { pluginTableProblem, type PluginTable } from '../../domain/plugins.js';
import { isProjectState, projectState, withMembers, type ProjectState } from '../../domain/project-state.js';
import { stateProblem } from '../../domain/state-shape.js';
import type { PluginReader, ProjectStore, ProjectStoreFactory, Rewrite, StoredState, Transaction } from '../../application/ports/project-store.js';
import { assertChangeSetsRef, bufferSource, copyForCheckpoint, decodeCheckpoint, encodeCheckpoint, encodeCheckpointInSlices } from '../checkpoint-file.js';
import { checkpointThreshold } from '../fs-project-store.js';
import type { CheckpointNodes } from '../lazy-nodes.js';
import { changeSetOf, replayChangeSets } from '../ledger-records.js';
import { assertReplaceable } from '../replacement-order.js';
import { invalidFile } from '../storage-error.js';
import { piecesSource } from '../pieces-source.js';
import { contentPieces, contentPiecesInSlices, dropCheckpoints, newestCheckpoint, saveCheckpointPieces } from './pg-checkpoint-pieces.js';
import { pluginTableOf, type PluginRow } from './pg-plugin-rows.js';
import { codeOf, commitOutcomeUnknown, databaseError, HeldConnection, isConnectionLost, queryFresh, withTransaction, type PreparedStatement } from './pg-pool.js';
import { PgSnapshotStore } from './pg-snapshot-store.js';
import { isOwnedElsewhere, OwnedElsewhere } from '../../application/ports/project-owners.js';
import type { CommitFence } from './pg-project-owners.js';

/** The channel every commit notifies, in its own transaction: `{project, revision, fence_generation}`. */
export const REVISION_CHANNEL = 'taskdag_revisions';

/** What a commit announces, and what a process hears of commits by the others. */
export interface RevisionEvent {
  project: string;
  revision: number;
  fence_generation: number;
}

/** A project's row: which incarnation of it the change sets belong to (a whole replacement starts a new one). */
interface ProjectRow {
  version: 1;
  fence_generation: number;
  incarnation: number;
}

/**
 * The project's state in this process: a ProjectState (graph and indexes) of one incarnation,
 * with its plugin table. It is changed in place, only by applying the change sets committed since
 * (replayChangeSets, as the file store replays its ledger) and by the drafts of this process's
 * own transactions, so its indexes are kept, not rebuilt, from commit to commit.
 */
interface Cached {
  row: ProjectRow;
  graph: ProjectState;
  plugins: StoredPlugins;
  /** The nodes of the checkpoint the state was loaded from: the next checkpoint copies their entries (null: none). */
  checkpointNodes: CheckpointNodes | null;
  /** The size of that checkpoint (0: none), and the bytes of change sets applied since it. */
  checkpointBytes: number;
  tail: number;
}

/** The plugin table as the rows hold it: a table, or why it cannot be used (docs/plugins.md). */
type StoredPlugins = { table: PluginTable; problem: null } | { table: null; problem: string; rows: PluginRow[] };

/** A read in one snapshot: nothing it does outlives it, so a lost connection is simply tried again. */
const READ_ONLY = { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', repeatable: true };

/**
 * $1 the project, $2 the revision in hand: the project's incarnation, then the change set that
 * made revision $2 (without its body: it proves the database still has it) and every one after,
 * in order. One statement, one snapshot, one round trip; when nothing changed, one short row.
 */
const CHANGES_SINCE: PreparedStatement = {
  name: 'taskdag_changes_since',
  text: `
  SELECT p.incarnation::int AS incarnation, c.revision::int AS revision,
    CASE WHEN c.revision > $2 THEN c.change END AS change, CASE WHEN c.revision > $2 THEN octet_length(c.change::text) END AS bytes
  FROM taskdag_projects p LEFT JOIN taskdag_change_sets c ON c.project = p.id AND c.revision >= $2
  WHERE p.id = $1 ORDER BY c.revision`,
};

/**
 * One commit, one statement: the change set is appended, made on revision $3 of incarnation $2.
 * The key (project, base_revision) is the compare-and-set (another commit on the same revision
 * makes this one fail with 23505) and the incarnation's foreign key refuses a commit on a project
 * replaced meanwhile (23503). The notification is part of the same transaction, so it is
 * delivered only if the change set is in.
 */
const APPEND: PreparedStatement = {
  name: 'taskdag_append',
  text: `
  WITH appended AS (
    INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change) VALUES ($1, $2, $3, $4, $5) RETURNING revision
  )
  SELECT pg_notify($6, $7) FROM appended`,
};

/**
 * APPEND for the project's owning process (pg-project-owners.ts): the change set goes in only
 * while $8 is still the project's fencing token. The owner row is locked shared, so a takeover
 * (which raises the token) waits for this commit, and a commit after it finds the new token and
 * appends nothing (no row comes back). Still one statement, one round trip.
 *
 * It notifies only when the owner row says some process hears the revision channel (schema 9):
 * PostgreSQL makes a transaction that notified hold one lock of the whole cluster through its
 * commit's WAL flush, so every commit that notifies waits for the one before it to reach the disk
 * (BENCHMARKS.md, "Commits that notify for nobody"). The flag is read from the row as locked,
 * its newest version (READ COMMITTED follows an update made after the statement's snapshot), and
 * a process that starts hearing sets it by updating that row, which waits for the commits holding
 * it: every commit either notifies or committed before the hearing process reads where each
 * project stands (PgProjectOwners.hearing).
 */
const APPEND_FENCED: PreparedStatement = {
  name: 'taskdag_append_fenced',
  text: `
  WITH owner AS (
    SELECT notify FROM taskdag_owners WHERE project = $1 AND fence = $8 FOR SHARE
  ), appended AS (
    INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change)
    SELECT $1::text, $2::bigint, $3::bigint, $4::bigint, $5::json FROM owner
    RETURNING revision
  )
  SELECT CASE WHEN owner.notify THEN pg_notify($6, $7) END FROM appended, owner`,
};

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
/** Connections a commit tries when each is found lost (the database ended them while idle). */
const LOST_CONNECTIONS = 32;

/**
 * A project's state in PostgreSQL, shared by every server process on the database
 * (docs/scaling.md). It keeps what the file store keeps: an append-only table of change sets (the
 * ledger), periodic checkpoints of the graph in the checkpoint file's format, the plugin table and
 * snapshots. A commit is one INSERT of its change set, keyed by the revision it was made on: the
 * insert is the compare-and-set, so of two processes committing on the same revision one lands,
 * and the other undoes its work, catches up and runs it again. Each process keeps its state in
 * memory and catches up by applying the change sets after its revision (one statement, which
 * every read makes); NOTIFY carries each commit's revision, so a process that heard of a newer
 * one catches up before it commits rather than after a refused insert. A read that arrives while
 * a transaction changes the state in memory waits until it is committed (or undone), so a reader
 * never sees a change before it is committed; it needs no statement of its own when an append of
 * this process sent after it arrived proves the state current, and the reads that arrive together
 * share one check otherwise.
 */
export class PgProjectStore implements ProjectStore {
  readonly location: string;
  readonly snapshots: PgSnapshotStore;
  private cached: Cached | null = null;
  /** The last commit announced on the revision channel, by any process. */
  private lastNoticed: Omit<RevisionEvent, 'project'> | null = null;
  /** While a transaction changes the state in memory: what readers wait for. */
  private changing: Promise<unknown> | null = null;
  /** This process's writers, one at a time: they would only refuse each other's change sets. */
  private writers: Promise<unknown> = Promise.resolve();
  /** Writers queued or running: a read waits for their appends rather than check the state itself. */
  private writersWaiting = 0;
  /** The whole load under way, if any: every caller that needs one meanwhile shares it. */
  private loading: Promise<Cached> | null = null;
  /** A checkpoint being saved: one at a time. */
  private checkpointing: Promise<void> | null = null;
  /** Statements that can prove the state in hand current (appends and checks), numbered as they are sent. */
  private proofsSent = 0;
  /** The newest proof that held: the state it proved was the newest committed when its statement ran. */
  private proof: { number: number; state: Cached } | null = null;
  /** The check under way or about to start, if any: the reads that need one meanwhile wait for it, then share the next. */
  private checking: Promise<void> | null = null;
  /** The connection the appends go out on, kept while commits follow one another. */
  private readonly commits: HeldConnection;

  /**
   * `owners`: the project's commits need its lease (a server with PostgreSQL, docs/scaling.md),
   * and a mutation of a project another process owns is refused with OwnedElsewhere before
   * anything is committed; null: any process commits (tools, tests of the ledger alone).
   */
  constructor(
    private readonly pool: Pool,
    readonly projectId: string,
    private readonly owners: CommitFence | null = null,
  ) {
    this.location = `postgresql:taskdag_projects/${projectId}`;
    this.snapshots = new PgSnapshotStore(pool, projectId, this.location);
    this.commits = new HeldConnection(pool);
  }

  /** A commit announced on the revision channel: the next transaction catches up first if it is newer than the state in hand. */
  noticed(event: Omit<RevisionEvent, 'project'>): void {
    this.lastNoticed = { revision: event.revision, fence_generation: event.fence_generation };
  }

  async readGraph<T>(read: (graph: Graph, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    return this.whenCurrent((current) => read(current.graph, this.pluginReader(current)));
  }

  async readState<T>(read: (state: GraphWithLog, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    for (;;) {
      const current = await this.whenCurrent((state) => state);
      const revision = current.graph.revision;
      const log = await this.log(this.pool, current.row.incarnation, revision);
      while (this.changing) await this.changing;
      // The same revision still (no commit or reader moved it on meanwhile), and committed.
      if (log && this.cached === current && current.graph.revision === revision) return read(withMembers(current.graph, { log }), this.pluginReader(current));
    }
  }

  /**
   * Hands `use` the state in hand once it holds every commit acknowledged before the call began
   * (by any process) and nothing uncommitted: no transaction of this process changes it, and a
   * statement sent after the call began proved it current — an append of this process (its
   * insert landed on the newest revision) or a check (one statement, which brings what changed).
   * Under a stream of group commits the next append proves every read waiting, with no statement
   * of their own, and it never starves them (the append sent next proves them); otherwise the
   * reads that arrive in the same turn of the event loop, or while a check is under way, share
   * the next one.
   */
  private async whenCurrent<T>(use: (current: Cached) => T): Promise<T> {
    const arrival = this.proofsSent;
    for (;;) {
      while (this.changing) await this.changing;
      const proof = this.proof;
      // Handed over in the same turn as the test: committed, proved since the call began, and nothing touched it since.
      if (proof && proof.number > arrival && proof.state === this.cached) return use(proof.state);
      this.checking ??= this.check();
      await this.checking;
    }
  }

  /**
   * One check of the state in hand against the database (catching it up), a proof if no
   * transaction took the state meanwhile. It starts a turn later, so the reads that arrive in this
   * turn need no other, and not at all if a writer of this process is under way by then: its
   * append will prove the state (and if it appends nothing, the reads ask again).
   */
  private async check(): Promise<void> {
    try {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.writersWaiting > 0) return await this.writers.then(() => undefined);
      const number = ++this.proofsSent;
      const current = await this.caughtUp(this.pool, () => !this.changing);
      if (current && current === this.cached) this.proved(number, current);
    } finally {
      this.checking = null;
    }
  }

  private proved(number: number, state: Cached): void {
    if (!this.proof || this.proof.number < number || this.proof.state !== state) this.proof = { number, state };
  }

  async transact<T, R = T>(work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>, after?: (result: T) => R | Promise<R>): Promise<R> {
    const result = await this.exclusive(() => {
      // Known to be another process's: refused before the state is touched, so it stays as it is for reads.
      const owner = this.owners?.elsewhere(this.projectId);
      if (owner !== undefined) throw new OwnedElsewhere(this.projectId, owner);
      return this.changingState(() => this.commitWork(work));
    });
    return after ? after(result) : (result as unknown as R);
  }

  /**
   * Runs `work` on the state in hand and appends its change set. The state is caught up first
   * only when it is cold or a newer commit was announced, so what `work` decided may rest on a
   * state that another process has moved past: an append refused because another process
   * committed first undoes the work (or drops the state, for work that cannot undo), catches up
   * and runs it again (every refusal means another commit landed); a result with nothing to
   * commit, or a failure, stands only once the state it was decided on is found current, and is
   * decided again on the newer state otherwise. Either check is one round trip.
   */
  private async commitWork<T>(work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>): Promise<T> {
    for (let behind = this.isBehind(); ; ) {
      const current = behind || !this.cached ? (await this.caughtUp(this.pool, () => true))! : this.cached;
      const base = current.graph.revision;
      let transaction: Transaction<T>;
      try {
        transaction = await work(current.graph, this.pluginReader(current));
      } catch (error) {
        // The state in hand may hold changes of the failed work: it is dropped either way.
        this.cached = null;
        if (await this.wasCurrent(current, base)) throw error;
        behind = true;
        continue;
      }
      const { result, changes, undo } = transaction;
      if (!changes) {
        const number = ++this.proofsSent;
        const now = await this.caughtUp(this.pool, () => true);
        if (now === current && now.graph.revision === base) {
          this.proved(number, current);
          return result;
        }
        behind = false;
        continue;
      }
      const appended = await this.fenceFor(undo).then((fence) => this.append(current, base, changes, fence));
      if (appended === true) return result;
      if (undo) undo();
      else this.cached = null;
      if (appended === 'fenced') throw new OwnedElsewhere(this.projectId, null);
      behind = true;
    }
  }

  /**
   * The fencing token this commit is made with (null: no ownership). When another process owns
   * the project, the work is undone (or the state dropped) and OwnedElsewhere passes on.
   */
  private async fenceFor(undo: (() => void) | undefined): Promise<number | null> {
    if (!this.owners) return null;
    try {
      return await this.owners.fenceFor(this.projectId);
    } catch (error) {
      if (undo) undo();
      else this.cached = null;
      throw error;
    }
  }

  /** Whether revision `base` of `current`'s incarnation is still the newest (nothing committed on it since). */
  private async wasCurrent(current: Cached, base: number): Promise<boolean> {
    const { rows } = await queryFresh<{ incarnation: number; revision: number | null }>(this.pool, CHANGES_SINCE, [this.projectId, base]);
    return rows.length === 1 && rows[0]!.incarnation === current.row.incarnation && rows[0]!.revision === base;
  }

  private isBehind(): boolean {
    const cached = this.cached;
    const noticed = this.lastNoticed;
    if (!cached || !noticed) return !cached;
    return noticed.fence_generation !== cached.row.fence_generation || noticed.revision > cached.graph.revision;
  }

  /**
   * Appends the change set made on revision `base`: true once it is in, false when another commit
   * on `base` (or a replacement) got there first, 'fenced' when `fence` is no longer the
   * project's token (another process took it over; nothing was appended). A connection lost on
   * the way leaves the outcome open: whether the change set at `base` is this one decides it,
   * and when none is there the append is sent again.
   */
  private async append(current: Cached, base: number, changes: ChangeSet, fence: number | null): Promise<boolean | 'fenced'> {
    const text = JSON.stringify(changes);
    const event = JSON.stringify({ project: this.projectId, revision: changes.revision, fence_generation: current.row.fence_generation });
    let lost = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const number = ++this.proofsSent;
        const values = [this.projectId, current.row.incarnation, base, changes.revision, text, REVISION_CHANNEL, event];
        const appended = await this.commits.query(fence === null ? { ...APPEND, values } : { ...APPEND_FENCED, values: [...values, fence] });
        if (appended.rows.length === 0) {
          if (lost && (await this.landed(current, base, text))) return true;
          this.owners!.fenced(this.projectId, fence!);
          return 'fenced';
        }
        this.proved(number, current);
        this.committed(current, Buffer.byteLength(text));
        return true;
      } catch (error) {
        const code = codeOf(error);
        if (code === UNIQUE_VIOLATION || code === FOREIGN_KEY_VIOLATION) return lost && (await this.landed(current, base, text));
        if (!isConnectionLost(error)) throw databaseError(error);
        if (attempt >= LOST_CONNECTIONS) throw commitOutcomeUnknown(error);
        lost = true;
        const landed = await this.landedOrNot(base, text).catch(() => {
          throw commitOutcomeUnknown(error);
        });
        if (landed === true) this.committed(current, Buffer.byteLength(text));
        if (landed !== null) return landed;
      }
    }
  }

  /** After a refused append that followed a lost connection: true if the change set at `base` is this one (the lost attempt landed). */
  private async landed(current: Cached, base: number, text: string): Promise<boolean> {
    const landed = (await this.landedOrNot(base, text)) === true;
    if (landed) this.committed(current, Buffer.byteLength(text));
    return landed;
  }

  /** Whether the change set made on `base` is `text` (true), another (false), or none is there (null). */
  private async landedOrNot(base: number, text: string): Promise<boolean | null> {
    const rows = await queryFresh<{ ours: boolean }>(this.pool, 'SELECT change::text = $3 AS ours FROM taskdag_change_sets WHERE project = $1 AND base_revision = $2', [
      this.projectId,
      base,
      text,
    ]);
    return rows.rows[0]?.ours ?? null;
  }

  /**
   * A change set of `bytes` is in: past the checkpoint threshold (the file store's server's: this
   * process keeps its state too, and a new owner or a restarted process replays at most that
   * much), a checkpoint is saved.
   */
  private committed(current: Cached, bytes: number): void {
    current.tail += bytes;
    if (current.tail >= checkpointThreshold(current.checkpointBytes, true)) this.saveCheckpoint(current);
  }

  /**
   * Copies the state as it is now (a consistent copy, whatever commits follow), encodes the copy
   * in slices between requests and saves it in the background. A failed save loses nothing, the
   * change sets hold it all: a later commit tries again, and a cold start replays more meanwhile.
   */
  private saveCheckpoint(current: Cached): void {
    if (this.checkpointing) return;
    const revision = current.graph.revision;
    const copy = copyForCheckpoint(current.graph);
    const { tail, checkpointBytes } = current;
    current.tail = 0;
    this.checkpointing = encodeCheckpointInSlices(copy, { table: 'taskdag_change_sets', revision }, current.checkpointNodes)
      .then(async (encoded) => {
        const pieces = await contentPiecesInSlices(encoded);
        current.checkpointBytes = pieces.reduce((sum, piece) => sum + piece.bytes.length, 0);
        await withTransaction(this.pool, (client) => saveCheckpointPieces(client, this.projectId, current.row.incarnation, revision, pieces));
      })
      .catch(() => {
        current.tail += tail;
        current.checkpointBytes = checkpointBytes;
      })
      .finally(() => (this.checkpointing = null));
  }

  /** Resolves once no checkpoint is being saved in the background: for tests, and for a process that stops. */
  async checkpointed(): Promise<void> {
    while (this.checkpointing) await this.checkpointing;
  }

  /**
   * Runs a transaction, which changes the state in memory in place, while readers wait; if it
   * fails, the state is dropped (it may hold changes never committed): the next call loads it.
   */
  private async changingState<T>(transaction: () => Promise<T>): Promise<T> {
    const running = transaction();
    this.changing = running.catch(() => undefined);
    try {
      return await running;
    } catch (error) {
      // Refused for another process's ownership, the work was undone (or the state dropped) already.
      if (!isOwnedElsewhere(error)) this.cached = null;
      throw error;
    } finally {
      this.changing = null;
    }
  }

  rewrite<T>(work: (current: StoredState) => Rewrite<T> | Promise<Rewrite<T>>): Promise<T> {
    return this.exclusive(async () => {
      let replaced: Cached | null = null;
      const result = await withTransaction(this.pool, async (client) => {
        // A project's row is its lock; a new project locks its id instead, so two inits create it once.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.projectId]);
        const current = await this.storedState(client, 'FOR UPDATE');
        const snapshotsBefore = this.snapshots.taken;
        const rewritten = await work(current);
        if (!rewritten.state) return rewritten.result;
        assertReplaceable(rewritten.state, current, this.location);
        const plugins = rewritten.plugins ?? {};
        const problem = pluginTableProblem(plugins);
        if (problem) throw invalidFile(this.pluginsLocation, problem);
        if (current.kind === 'unreadable' && this.snapshots.taken === snapshotsBefore) {
          await this.snapshots.take('corrupt-recovery', current, new Date().toISOString());
        }
        replaced = await this.writeWhole(client, rewritten.state, plugins);
        return rewritten.result;
      });
      if (replaced) this.cached = replaced;
      return result;
    });
  }

  async replace(state: State, plugins: PluginTable = {}): Promise<void> {
    await this.rewrite(() => ({ result: undefined, state, plugins }));
  }

  inspect(): Promise<StoredState> {
    return withTransaction(this.pool, (client) => this.storedState(client, ''), READ_ONLY);
  }

  private async rowIfAny(client: PoolClient, lock: '' | 'FOR UPDATE'): Promise<ProjectRow | undefined> {
    const sql = `SELECT version, fence_generation::int, incarnation::int FROM taskdag_projects WHERE id = $1 ${lock}`;
    return (await client.query<ProjectRow>(sql, [this.projectId])).rows[0];
  }

  /** Where a damaged plugin table is said to be, in messages. */
  private get pluginsLocation(): string {
    return `${this.location}/plugins`;
  }

  /**
   * What the rows hold, as whole-state operations see it; change sets or a checkpoint that do not
   * load, a state that breaks a rule of its shape, or a plugin table that does not load are
   * unreadable. Its `text`, what a corrupt-recovery snapshot keeps, is the state as JSON, with the
   * plugin rows beside it when there are any; or the change set rows, when they do not load.
   */
  private async storedState(client: PoolClient, lock: '' | 'FOR UPDATE'): Promise<StoredState> {
    const row = await this.rowIfAny(client, lock);
    if (!row) return { kind: 'absent' };
    let loaded: Cached;
    let state: State;
    try {
      loaded = await this.loadWhole(client, row);
      const { indexes: _indexes, ...graph } = loaded.graph;
      const log = await this.log(client, row.incarnation, loaded.graph.revision);
      if (!log) throw noState(this.projectId);
      // Every node read here: a checkpoint's node line is checked only as it is read, and one that
      // does not check makes the state unreadable (a restore replaces it), as a checkpoint that does not load.
      state = { ...plainGraph(graph as Graph), log };
    } catch (error) {
      if (!isDomainError(error) || error.details.cause !== 'EINVALID') throw error;
      const rows = (await client.query<{ revision: number; change: unknown }>('SELECT revision::int, change FROM taskdag_change_sets WHERE project = $1 ORDER BY revision', [this.projectId])).rows;
      const revision = Math.max(0, ...rows.map((changes) => changes.revision));
      return { kind: 'unreadable', text: JSON.stringify({ change_sets: rows }), error, reached: { revision, fence_generation: row.fence_generation } };
    }
    const problem = stateProblem(state);
    const plugins = loaded.plugins;
    if (!problem && plugins.problem === null) return { kind: 'valid', state, plugins: plugins.table };
    const error = problem
      ? new DomainError('STORAGE_ERROR', `${this.location} is not valid taskdag state: ${problem}`, { cause: 'EINVALID', path: this.location, problem })
      : invalidFile(this.pluginsLocation, plugins.problem!);
    const text = JSON.stringify(plugins.problem === null ? state : { state, plugin_rows: plugins.rows });
    return { kind: 'unreadable', text, error, reached: { revision: state.revision, fence_generation: row.fence_generation } };
  }

  /** The plugin table committed with `current`'s graph; a damaged one fails the call that asks for it, as on files. */
  private pluginReader(current: Cached): PluginReader {
    return () => {
      const plugins = current.plugins;
      if (plugins.problem !== null) throw invalidFile(this.pluginsLocation, plugins.problem);
      return structuredClone(plugins.table);
    };
  }

  /**
   * The committed state, caught up: the state in hand with the change sets committed since
   * applied to it in place, or loaded whole when there is none, when the project was replaced
   * whole since (another incarnation) or when the database no longer has the revision in hand (a
   * database restored to an earlier point). `mayApply` is asked before anything is applied: a
   * reader gives way (null) to a transaction that took the state meanwhile.
   */
  private async caughtUp(client: PoolClient | Pool, mayApply: () => boolean): Promise<Cached | null> {
    const cached = this.cached;
    if (!cached) return this.adopt(await this.loadAlone(client), mayApply);
    type Row = { incarnation: number; revision: number | null; change: unknown; bytes: number | null };
    // Asked with no transaction in flight, so the revision in hand is a committed one; one may start meanwhile.
    const revision = cached.graph.revision;
    const values = [this.projectId, revision];
    // On the pool (a read) the statement is retried if its connection was ended while idle.
    const { rows } = client === this.pool ? await queryFresh<Row>(this.pool, CHANGES_SINCE, values) : await client.query<Row>({ ...CHANGES_SINCE, values });
    if (rows.length === 0) throw noState(this.projectId);
    if (rows[0]!.incarnation !== cached.row.incarnation || rows[0]!.revision !== revision) return this.adopt(await this.loadAlone(client), mayApply);
    if (rows.length === 1) return cached;
    if (!mayApply() || this.cached !== cached) return null;
    // Another reader may have applied some of them already, from the same rows.
    const newer = rows.filter((row) => row.revision! > cached.graph.revision);
    replayChangeSets(cached.graph, newer.map((row) => this.changeSetOf(row)), this.location);
    cached.tail += newer.reduce((sum, row) => sum + row.bytes!, 0);
    return cached;
  }

  /** `loaded` as the state in hand, unless a transaction took the state meanwhile (null: ask again). */
  private adopt(loaded: Cached, mayApply: () => boolean): Cached | null {
    if (!mayApply()) return null;
    this.cached = loaded;
    return loaded;
  }

  /**
   * A whole load on `client`, or in a read-only snapshot of its own when given the pool: one at a
   * time, which every caller that needs one meanwhile shares (a cold process answering 32 agents
   * loads the state once, not 32 times).
   */
  private loadAlone(client: PoolClient | Pool): Promise<Cached> {
    if (client !== this.pool) return this.loadWhole(client as PoolClient);
    if (!this.loading) {
      this.loading = withTransaction(this.pool, (own) => this.loadWhole(own), READ_ONLY);
      const clear = () => (this.loading = null);
      this.loading.then(clear, clear);
    }
    return this.loading;
  }

  /**
   * The state as the rows hold it, in the client's snapshot: the newest checkpoint of the
   * project's incarnation (none: an empty graph), the change sets after it replayed on it, the
   * plugin table.
   */
  private async loadWhole(client: PoolClient, known?: ProjectRow): Promise<Cached> {
    const row = known ?? (await this.rowIfAny(client, ''));
    if (!row) throw noState(this.projectId);
    const newest = await newestCheckpoint(client, this.projectId, row.incarnation, this.location);
    // Kept in the pieces it came in (piecesSource), never joined.
    const checkpoint = newest ? { revision: newest.revision, source: piecesSource(newest.pieces) } : undefined;
    type ChangeRow = { revision: number; change: unknown; bytes: number };
    const changes = await client.query<ChangeRow>(
      'SELECT revision::int, change, octet_length(change::text)::int AS bytes FROM taskdag_change_sets WHERE project = $1 AND incarnation = $2 AND revision > $3 ORDER BY revision',
      [this.projectId, row.incarnation, checkpoint?.revision ?? -1],
    );
    const pluginRows = (await client.query<PluginRow>('SELECT plugin, key, value FROM taskdag_plugin_data WHERE project = $1', [this.projectId])).rows;
    let graph: Graph;
    let checkpointNodes: CheckpointNodes | null = null;
    if (checkpoint) {
      // As the file store's server keeps its checkpoint: the bytes in memory, each node parsed when
      // first read (a 50k-node graph parsed whole at load is 80 MB more heap for every collection
      // to mark), the heads and endpoints it saved used while the rules that derived them are this
      // release's, and the nodes never read copied as bytes into the next checkpoint.
      const decoded = decodeCheckpoint(checkpoint.source, `${this.location}/checkpoints/${checkpoint.revision}`, assertChangeSetsRef);
      graph = decoded.graph;
      checkpointNodes = decoded.nodes;
    } else {
      // An incarnation starts with a change set made on an empty graph.
      graph = { version: row.version, fence_generation: row.fence_generation, revision: -1, initiatives: {}, nodes: {}, edges: [] };
    }
    const changeSets = changes.rows.map((changeRow) => this.changeSetOf(changeRow));
    replayChangeSets(graph, changeSets, this.location);
    graph.fence_generation = row.fence_generation;
    return {
      row,
      // Replayed on a plain graph, the change sets remembered no request yet: they are taken from them.
      graph: isProjectState(graph) ? graph : projectState(graph, null, changeSets.flatMap((changeSet) => changeSet.requests ?? [])),
      plugins: storedPlugins(pluginRows),
      checkpointNodes,
      checkpointBytes: checkpoint?.source.size ?? 0,
      tail: changes.rows.reduce((sum, changeRow) => sum + changeRow.bytes, 0),
    };
  }

  private changeSetOf(row: { revision: number | null; change: unknown }): ChangeSet {
    const changes = changeSetOf(row.change);
    if (changes === null || changes.revision !== row.revision) throw invalidFile(this.location, `the change set of revision ${row.revision} is malformed`);
    return changes;
  }

  /**
   * The log up to `revision` of `incarnation`: every change set's entries, in order; null when the
   * change set of `revision` is not there (the project was replaced whole meanwhile).
   */
  private async log(client: PoolClient | Pool, incarnation: number, revision: number): Promise<LogEntry[] | null> {
    type Row = { revision: number; log: LogEntry[] };
    const sql = "SELECT revision::int, change->'log' AS log FROM taskdag_change_sets WHERE project = $1 AND incarnation = $2 AND revision <= $3 ORDER BY revision";
    const values = [this.projectId, incarnation, revision];
    const { rows } = client === this.pool ? await queryFresh<Row>(this.pool, sql, values) : await client.query<Row>(sql, values);
    return rows.at(-1)?.revision === revision ? rows.flatMap((row) => row.log) : null;
  }

  /**
   * Replaces the project's rows with `state` and `plugins`, as a new incarnation: the change sets
   * and checkpoints of the one before go (as the file store removes the ledger it replaces), and
   * the new one starts with one change set that holds the whole state, made on an empty graph,
   * and a checkpoint of it (as the file store writes one), so that no process replays that change
   * set to load the project, nor saves a checkpoint of it at its first commit.
   */
  private async writeWhole(client: PoolClient, state: State, plugins: PluginTable): Promise<Cached> {
    const project = this.projectId;
    const { log, ...graph } = state;
    const existing = await this.rowIfAny(client, 'FOR UPDATE');
    const row: ProjectRow = { version: 1, fence_generation: state.fence_generation, incarnation: (existing?.incarnation ?? 0) + 1 };
    await client.query('DELETE FROM taskdag_change_sets WHERE project = $1', [project]);
    await dropCheckpoints(client, project);
    await client.query('DELETE FROM taskdag_plugin_data WHERE project = $1', [project]);
    // revision, log_length and edges_revision are schema 1's: kept filled, no longer read.
    await client.query(
      `INSERT INTO taskdag_projects (id, version, fence_generation, revision, incarnation, log_length, edges_revision) VALUES ($1, $2, $3, $4, $5, 0, $4)
       ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, fence_generation = EXCLUDED.fence_generation, revision = EXCLUDED.revision,
         incarnation = EXCLUDED.incarnation, log_length = EXCLUDED.log_length, edges_revision = EXCLUDED.edges_revision`,
      [project, row.version, row.fence_generation, state.revision, row.incarnation],
    );
    const start: ChangeSet = { revision: state.revision, log, nodes: graph.nodes, notes: [], edges: graph.edges.map((edge) => ({ op: 'add', edge })), initiatives: graph.initiatives };
    const text = JSON.stringify(start);
    const event = JSON.stringify({ project, revision: state.revision, fence_generation: row.fence_generation });
    await client.query({ ...APPEND, values: [project, row.incarnation, -1, state.revision, text, REVISION_CHANNEL, event] });
    // One row per field of each installed plugin: its data is the row keyed `data`.
    await client.query(
      'INSERT INTO taskdag_plugin_data (project, plugin, key, value) SELECT $1, plugin.key, field.key, field.value FROM json_each($2::json) plugin, json_each(plugin.value) field',
      [project, JSON.stringify(plugins)],
    );
    const checkpoint = encodeCheckpoint(graph, { table: 'taskdag_change_sets', revision: state.revision });
    await saveCheckpointPieces(client, project, row.incarnation, state.revision, [...contentPieces([checkpoint])]);
    // Kept as a load would find it (loadWhole): the checkpoint's bytes, which also copy `state` for the caller to keep.
    const { graph: loaded, nodes } = decodeCheckpoint(bufferSource(checkpoint), `${this.location}/checkpoints/${state.revision}`, assertChangeSetsRef);
    return {
      row,
      graph: loaded,
      plugins: { table: structuredClone(plugins), problem: null },
      checkpointNodes: nodes,
      checkpointBytes: checkpoint.length,
      tail: 0,
    };
  }

  /** Runs `work` after this process's earlier writers of the project have settled. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.writersWaiting += 1;
    const run = this.writers.then(work, work);
    this.writers = run.catch(() => undefined);
    const settled = () => (this.writersWaiting -= 1);
    run.then(settled, settled);
    return run;
  }
}

function storedPlugins(rows: PluginRow[]): StoredPlugins {
  const table: unknown = pluginTableOf(rows);
  const problem = pluginTableProblem(table);
  return problem === null ? { table: table as PluginTable, problem: null } : { table: null, problem, rows };
}

function noState(projectId: string): DomainError {
  return new DomainError('STORAGE_ERROR', `Project ${projectId} has no state: run taskdag init`, { cause: 'ENOENT', project_id: projectId });
}

/** Every project that has a state in the database. */
export class PgProjectStoreFactory implements ProjectStoreFactory {
  private readonly opened = new Map<string, PgProjectStore>();

  /** `owners`: every project's commits need its lease (PgProjectStore). */
  constructor(
    private readonly pool: Pool,
    private readonly owners: CommitFence | null = null,
  ) {}

  open(projectId: string): PgProjectStore {
    let store = this.opened.get(projectId);
    if (!store) this.opened.set(projectId, (store = new PgProjectStore(this.pool, projectId, this.owners)));
    return store;
  }

  /** A commit announced on the revision channel (pg-revision-listener.ts), told to the project's store if it is open. */
  noticed(event: RevisionEvent): void {
    this.opened.get(event.project)?.noticed(event);
  }

  async list(): Promise<string[]> {
    return (await queryFresh<{ id: string }>(this.pool, 'SELECT id FROM taskdag_projects ORDER BY id', [])).rows.map((row) => row.id);
  }
}
