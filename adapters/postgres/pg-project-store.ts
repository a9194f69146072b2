import type { Pool, PoolClient } from 'pg';
import { DomainError } from '../../domain/errors.js';
import { applyChangeSet, type ChangeSet, type NoteAppended } from '../../domain/change-set.js';
import type { Edge, Graph, GraphNode, Initiative, LogEntry, Note, State } from '../../domain/model.js';
import { pluginTableProblem, type PluginTable } from '../../domain/plugins.js';
import { projectState, withMembers, type ProjectState } from '../../domain/project-state.js';
import { stateProblem } from '../../domain/state-shape.js';
import type { PluginReader, ProjectStore, ProjectStoreFactory, Rewrite, StoredState, Transaction } from '../../application/ports/project-store.js';
import { assertReplaceable } from '../replacement-order.js';
import { invalidFile } from '../storage-error.js';
import { pluginTableOf, type PluginRow } from './pg-plugin-rows.js';
import { queryFresh, withTransaction } from './pg-pool.js';
import { PgSnapshotStore } from './pg-snapshot-store.js';

/** The channel every commit notifies, in its own transaction: `{project, revision, fence_generation}`. */
export const REVISION_CHANNEL = 'taskdag_revisions';

/** A project's row: where its state stands. */
interface ProjectRow {
  version: 1;
  fence_generation: number;
  revision: number;
  incarnation: number;
  log_length: number;
  edges_revision: number;
}

/**
 * The project's state in this process: a ProjectState (graph and indexes) as of a project row,
 * with the plugin table of its incarnation. It is changed in place, only by applying the change
 * sets committed since (caught up from rows) and by the draft of this process's own transaction,
 * so its indexes are kept, not rebuilt, from commit to commit. The plugin table changes only with
 * a whole replacement (a new incarnation), so a state caught up from rows keeps its base's.
 */
interface Cached {
  row: ProjectRow;
  graph: ProjectState;
  plugins: StoredPlugins;
}

/** The plugin table as the rows hold it: a table, or why it cannot be used (docs/plugins.md). */
type StoredPlugins = { table: PluginTable; problem: null } | { table: null; problem: string; rows: PluginRow[] };

const ROW = 'version, fence_generation::int, revision::int, incarnation::int, log_length::int, edges_revision::int';
/** A read in one snapshot: nothing it does outlives it, so a lost connection is simply tried again. */
const READ_ONLY = { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', repeatable: true };

/** See graphSince: $1 the project, $2 the revision of the graph in hand, $3 its incarnation (-1 for none). */
const GRAPH_SINCE = `
  WITH r AS (
    SELECT ${ROW}, CASE WHEN incarnation = $3 THEN $2::bigint ELSE -1 END AS since FROM taskdag_projects WHERE id = $1
  )
  SELECT '0-row' AS kind, NULL AS key, row_to_json(r)::json AS value, 0::bigint AS ord, NULL::int AS node_revision, NULL::text AS updated_at FROM r
  UNION ALL SELECT 'a-node', n.id, n.node, n.position, NULL, NULL FROM taskdag_nodes n, r WHERE n.project = $1 AND n.revision > r.since
  UNION ALL SELECT 'b-note', o.node, o.note, o.seq, o.node_revision::int, o.updated_at FROM taskdag_notes o, r WHERE o.project = $1 AND o.revision > r.since
  UNION ALL SELECT 'c-initiative', i.name, i.initiative, i.position, NULL, NULL FROM taskdag_initiatives i, r WHERE i.project = $1 AND i.revision > r.since
  UNION ALL SELECT 'd-edge', NULL, json_build_object('from', e.from_id, 'to', e.to_id, 'type', e.type), e.position, NULL, NULL
    FROM taskdag_edges e, r WHERE e.project = $1 AND (r.since < 0 OR r.edges_revision > r.since)
  UNION ALL SELECT 'e-plugin', p.plugin, p.value, 0, NULL, p.key FROM taskdag_plugin_data p, r WHERE p.project = $1 AND r.since < 0
  ORDER BY kind, ord`;

/**
 * A project's state in PostgreSQL, shared by every server process on the database (docs/scaling.md).
 * Each commit is one transaction that first locks the project's row (SELECT ... FOR UPDATE), so
 * commits of every process are serialized and a claim has one winner; it writes the change set
 * as rows (the nodes written, the notes appended, the edge changes, the initiatives, the log
 * entries) and compares-and-sets the revision. Each process keeps the graph of its last read or
 * commit and catches up from the rows changed since (by revision), reloading whole only after a
 * whole replacement (a new incarnation). Readers run in a read-only snapshot; a transaction works
 * on the state in memory, and a read that arrives meanwhile waits until it is committed (or
 * dropped), so a reader never sees a change before it is committed. A failed transaction drops
 * the state in memory: the next call loads it whole.
 */
export class PgProjectStore implements ProjectStore {
  readonly location: string;
  readonly snapshots: PgSnapshotStore;
  private cached: Cached | null = null;
  /** While a transaction changes the state in memory: what readers wait for. */
  private changing: Promise<unknown> | null = null;
  /** This process's writers, one at a time: they would only queue on the row lock holding a connection each. */
  private writers: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    readonly projectId: string,
  ) {
    this.location = `postgresql:taskdag_projects/${projectId}`;
    this.snapshots = new PgSnapshotStore(pool, projectId, this.location);
  }

  async readGraph<T>(read: (graph: Graph, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    // One statement, one snapshot: the row, and only what changed since the graph in hand.
    const current = await this.committed(() => this.graphSince(this.pool, this.cached, false));
    return read(current.graph, this.pluginReader(current));
  }

  async readState<T>(read: (state: State, plugins: PluginReader) => T | Promise<T>): Promise<T> {
    const { current, log } = await this.committed(
      () => withTransaction(this.pool, async (client) => ({ current: await this.graphSince(client, this.cached, false), log: await this.log(client) }), READ_ONLY),
    );
    return read(withMembers(current.graph, { log }), this.pluginReader(current));
  }

  async transact<T, R = T>(work: (graph: Graph, plugins: PluginReader) => Transaction<T> | Promise<Transaction<T>>, after?: (result: T) => R | Promise<R>): Promise<R> {
    let attempts = 0;
    const result = await this.exclusive(() =>
      this.changingState(() =>
        // Repeatable: the work decides on the graph it is given and writes only rows of this
        // transaction, so after a connection lost before COMMIT it runs again, on a state loaded
        // afresh (the first run may have changed the one in memory).
        withTransaction(this.pool, async (client) => {
          if (attempts++ > 0) this.cached = null;
          // The lock first, then a statement that starts after it: it sees every commit before ours.
          await this.row(client, 'FOR UPDATE');
          const current = await this.graphSince(client, this.cached, true);
          const { result, changes } = await work(current.graph, this.pluginReader(current));
          if (changes) {
            current.row = await this.commit(client, current.row, changes);
            this.keep(current);
          }
          return result;
        }, { repeatable: true }),
      ),
    );
    return after ? after(result) : (result as unknown as R);
  }

  /**
   * Runs a transaction, which changes the state in memory in place, while readers wait; if it
   * fails, or its commit does not go through, the state is dropped (it may hold changes never
   * committed): the next call loads it whole.
   */
  private async changingState<T>(transaction: () => Promise<T>): Promise<T> {
    const running = transaction();
    this.changing = running.catch(() => undefined);
    try {
      return await running;
    } catch (error) {
      this.cached = null;
      throw error;
    } finally {
      this.changing = null;
    }
  }

  /** What `read` gives once no transaction is changing the state in memory, before or after it read. */
  private async committed<T>(read: () => Promise<T>): Promise<T> {
    for (;;) {
      while (this.changing) await this.changing;
      const value = await read();
      if (!this.changing) return value;
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

  /** The project's row, or STORAGE_ERROR when it has no state. */
  private async row(client: PoolClient | Pool, lock: '' | 'FOR UPDATE' = ''): Promise<ProjectRow> {
    const row = await this.rowIfAny(client, lock);
    if (!row) throw noState(this.projectId);
    return row;
  }

  private async rowIfAny(client: PoolClient | Pool, lock: '' | 'FOR UPDATE'): Promise<ProjectRow | undefined> {
    return (await client.query<ProjectRow>(`SELECT ${ROW} FROM taskdag_projects WHERE id = $1 ${lock}`, [this.projectId])).rows[0];
  }

  /** Where a damaged plugin table is said to be, in messages. */
  private get pluginsLocation(): string {
    return `${this.location}/plugins`;
  }

  /**
   * What the rows hold, as whole-state operations see it; a state that breaks a rule of its shape
   * or a plugin table that does not load is unreadable. Its `text`, what a corrupt-recovery
   * snapshot keeps, is the state as JSON, with the plugin rows beside it when there are any.
   */
  private async storedState(client: PoolClient, lock: '' | 'FOR UPDATE'): Promise<StoredState> {
    const row = await this.rowIfAny(client, lock);
    if (!row) return { kind: 'absent' };
    const loaded = await this.graphSince(client, null, false);
    const state: State = { ...loaded.graph, log: await this.log(client) };
    const problem = stateProblem(state);
    const plugins = loaded.plugins;
    if (!problem && plugins.problem === null) return { kind: 'valid', state, plugins: plugins.table };
    const error = problem
      ? new DomainError('STORAGE_ERROR', `${this.location} is not valid taskdag state: ${problem}`, { cause: 'EINVALID', path: this.location, problem })
      : invalidFile(this.pluginsLocation, plugins.problem!);
    const text = JSON.stringify(plugins.problem === null ? state : { state, plugin_rows: plugins.rows });
    return { kind: 'unreadable', text, error, reached: { revision: row.revision, fence_generation: row.fence_generation } };
  }

  /** The plugin table committed with `current`'s graph; a damaged one fails the call that asks for it, as on files. */
  private pluginReader(current: Cached): PluginReader {
    return () => {
      const plugins = current.plugins;
      if (plugins.problem !== null) throw invalidFile(this.pluginsLocation, plugins.problem);
      return structuredClone(plugins.table);
    };
  }

  /** Keeps the newer of two graphs (a reader and a writer of this process may both have one). */
  private keep(candidate: Cached): void {
    const cached = this.cached;
    if (!cached || cached.row.incarnation !== candidate.row.incarnation || cached.row.revision < candidate.row.revision) this.cached = candidate;
  }

  /**
   * The committed graph, in one statement (so one snapshot, and one round trip while a commit
   * holds the project's lock): the project's row, then whatever was written after `base`'s
   * revision — nodes, the notes appended to them in order (a node written whole later has none
   * left), initiatives, and the edges if any changed. Without a base, or when the project was
   * replaced whole since (another incarnation), everything. `base` itself when nothing changed.
   * `inPlace` (a transaction, alone in changing the state): what changed is applied to `base` as
   * a change set, so its indexes are kept; a reader, or a change to the edges, loads a new state.
   */
  private async graphSince(client: PoolClient | Pool, base: Cached | null, inPlace: boolean): Promise<Cached> {
    type Row = { kind: string; key: string | null; value: unknown; node_revision: number | null; updated_at: string | null };
    const values = [this.projectId, base?.row.revision ?? -1, base?.row.incarnation ?? -1];
    // On the pool (a read) the statement is retried once if its connection was ended while idle.
    const rows = client === this.pool ? await queryFresh<Row>(this.pool, GRAPH_SINCE, values) : await client.query<Row>(GRAPH_SINCE, values);
    const first = rows.rows[0];
    if (first?.kind !== '0-row') throw noState(this.projectId);
    const { since, ...row } = first.value as ProjectRow & { since: number };
    if (base && since >= 0 && row.revision === base.row.revision) return base;
    // A database restored to an earlier point: the graph in hand is ahead of it, so load it all.
    if (base && since >= 0 && row.revision < base.row.revision) return this.graphSince(client, null, inPlace);
    const changes: ChangeSet = { revision: row.revision, log: [], nodes: {}, notes: [], edges: [], initiatives: {} };
    const edges: Edge[] = [];
    const pluginRows: PluginRow[] = [];
    for (const { kind, key, value, node_revision, updated_at } of rows.rows) {
      if (kind === 'a-node') changes.nodes[key!] = value as GraphNode;
      else if (kind === 'b-note') changes.notes!.push({ node: key!, note: value as Note, revision: node_revision!, updated_at: updated_at! } satisfies NoteAppended);
      else if (kind === 'c-initiative') changes.initiatives[key!] = value as Initiative;
      else if (kind === 'd-edge') edges.push(value as Edge);
      else if (kind === 'e-plugin') pluginRows.push({ plugin: key!, key: updated_at!, value });
    }
    const edgesChanged = since < 0 || row.edges_revision > since;
    if (base && since >= 0 && inPlace && !edgesChanged) {
      applyChangeSet(base.graph, changes);
      base.graph.fence_generation = row.fence_generation;
      base.row = row;
      return base;
    }
    const caughtUp = base !== null && since >= 0;
    const { indexes: _indexes, ...kept } = caughtUp ? base.graph : { indexes: null };
    const graph: Graph = caughtUp
      ? { ...(kept as Graph), nodes: { ...base.graph.nodes }, edges: [...base.graph.edges], initiatives: { ...base.graph.initiatives } }
      : { version: 1, fence_generation: row.fence_generation, revision: row.revision, initiatives: {}, nodes: {}, edges: [] };
    applyChangeSet(graph, changes);
    if (edgesChanged) graph.edges = edges;
    graph.fence_generation = row.fence_generation;
    const fresh = { row, graph: projectState(graph), plugins: caughtUp ? base.plugins : storedPlugins(pluginRows) };
    this.keep(fresh);
    return fresh;
  }

  private async log(client: PoolClient): Promise<LogEntry[]> {
    return (await client.query<{ entry: LogEntry }>('SELECT entry FROM taskdag_log WHERE project = $1 ORDER BY seq', [this.projectId])).rows.map((row) => row.entry);
  }

  /**
   * Writes what the change set changed, compares-and-sets the revision (the row lock already
   * serializes writers: the check catches a bug, never a race) and notifies the new revision,
   * which PostgreSQL delivers only if the transaction commits.
   */
  private async commit(client: PoolClient, row: ProjectRow, changes: ChangeSet): Promise<ProjectRow> {
    if (changes.revision <= row.revision) {
      throw new DomainError('STORAGE_ERROR', `A commit at revision ${changes.revision} would not move past ${row.revision}`, { cause: 'EINVALID', path: this.location });
    }
    const project = this.projectId;
    const revision = changes.revision;
    // Edge changes go one by one, in order: an edge added and removed in one group must end removed.
    for (const change of changes.edges) {
      const { from, to, type } = change.edge;
      if (change.op === 'add') await client.query('INSERT INTO taskdag_edges (project, from_id, to_id, type) VALUES ($1, $2, $3, $4)', [project, from, to, type]);
      else {
        await client.query(
          `DELETE FROM taskdag_edges WHERE project = $1 AND position =
           (SELECT min(position) FROM taskdag_edges WHERE project = $1 AND from_id = $2 AND to_id = $3 AND type = $4)`,
          [project, from, to, type],
        );
      }
    }
    const next: ProjectRow = {
      ...row,
      revision,
      log_length: row.log_length + changes.log.length,
      edges_revision: changes.edges.length > 0 ? revision : row.edges_revision,
    };
    const notes = changes.notes.map((appended) => ({ node: appended.node, node_revision: appended.revision, updated_at: appended.updated_at, note: appended.note }));
    const event = { project, revision, fence_generation: row.fence_generation };
    // Everything else in one statement (one round trip while the project is locked). Its parts see
    // one snapshot: the notes it deletes are those before this commit, never the ones it adds
    // (a change set holds no appended note for a node it writes whole).
    const written = await client.query<{ updated: number }>(
      `WITH nodes AS (
         INSERT INTO taskdag_nodes (project, id, revision, node) SELECT $1, key, $2, value FROM json_each($3::json)
         ON CONFLICT (project, id) DO UPDATE SET node = EXCLUDED.node, revision = EXCLUDED.revision RETURNING 1
       ), superseded_notes AS (
         DELETE FROM taskdag_notes WHERE project = $1 AND node IN (SELECT key FROM json_each($3::json)) RETURNING 1
       ), notes AS (
         INSERT INTO taskdag_notes (project, node, revision, node_revision, updated_at, note)
         SELECT $1, note->>'node', $2, (note->>'node_revision')::bigint, note->>'updated_at', note->'note'
         FROM json_array_elements($4::json) WITH ORDINALITY AS appended (note, at) ORDER BY at RETURNING 1
       ), initiatives AS (
         INSERT INTO taskdag_initiatives (project, name, revision, initiative) SELECT $1, key, $2, value FROM json_each($5::json)
         ON CONFLICT (project, name) DO UPDATE SET initiative = EXCLUDED.initiative, revision = EXCLUDED.revision RETURNING 1
       ), log AS (
         INSERT INTO taskdag_log (project, seq, entry) SELECT $1, $6 + ordinality, value FROM json_array_elements($7::json) WITH ORDINALITY RETURNING 1
       ), project AS (
         UPDATE taskdag_projects SET revision = $2, log_length = $8, edges_revision = $9 WHERE id = $1 AND revision = $10 RETURNING 1
       )
       SELECT (SELECT count(*) FROM project)::int AS updated, pg_notify($11, $12)`,
      [
        project,
        revision,
        JSON.stringify(changes.nodes),
        JSON.stringify(notes),
        JSON.stringify(changes.initiatives),
        row.log_length,
        JSON.stringify(changes.log),
        next.log_length,
        next.edges_revision,
        row.revision,
        REVISION_CHANNEL,
        JSON.stringify(event),
      ],
    );
    if (written.rows[0]!.updated !== 1) throw new DomainError('STORAGE_ERROR', `Project ${project} moved on during a commit`, { cause: 'ECONFLICT', path: this.location });
    return next;
  }

  /** Replaces every row of the project with `state` and `plugins`, as a new incarnation. */
  private async writeWhole(client: PoolClient, state: State, plugins: PluginTable): Promise<Cached> {
    const project = this.projectId;
    const { log, ...graph } = state;
    const existing = await this.rowIfAny(client, 'FOR UPDATE');
    const row: ProjectRow = {
      version: 1,
      fence_generation: state.fence_generation,
      revision: state.revision,
      incarnation: (existing?.incarnation ?? 0) + 1,
      log_length: log.length,
      edges_revision: state.revision,
    };
    await client.query(
      `INSERT INTO taskdag_projects (id, version, fence_generation, revision, incarnation, log_length, edges_revision) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, fence_generation = EXCLUDED.fence_generation, revision = EXCLUDED.revision,
         incarnation = EXCLUDED.incarnation, log_length = EXCLUDED.log_length, edges_revision = EXCLUDED.edges_revision`,
      [project, row.version, row.fence_generation, row.revision, row.incarnation, row.log_length, row.edges_revision],
    );
    for (const table of ['taskdag_nodes', 'taskdag_notes', 'taskdag_edges', 'taskdag_initiatives', 'taskdag_log', 'taskdag_plugin_data']) {
      await client.query(`DELETE FROM ${table} WHERE project = $1`, [project]);
    }
    await client.query('INSERT INTO taskdag_nodes (project, id, revision, node) SELECT $1, key, $2, value FROM json_each($3::json)', [project, row.revision, JSON.stringify(graph.nodes)]);
    await client.query('INSERT INTO taskdag_initiatives (project, name, revision, initiative) SELECT $1, key, $2, value FROM json_each($3::json)', [
      project,
      row.revision,
      JSON.stringify(graph.initiatives),
    ]);
    await client.query(
      `INSERT INTO taskdag_edges (project, from_id, to_id, type) SELECT $1, edge->>'from', edge->>'to', edge->>'type'
       FROM json_array_elements($2::json) WITH ORDINALITY AS edges (edge, at) ORDER BY at`,
      [project, JSON.stringify(graph.edges)],
    );
    await client.query('INSERT INTO taskdag_log (project, seq, entry) SELECT $1, ordinality, value FROM json_array_elements($2::json) WITH ORDINALITY', [
      project,
      JSON.stringify(log),
    ]);
    // One row per field of each installed plugin: its data is the row keyed `data`.
    await client.query(
      'INSERT INTO taskdag_plugin_data (project, plugin, key, value) SELECT $1, plugin.key, field.key, field.value FROM json_each($2::json) plugin, json_each(plugin.value) field',
      [project, JSON.stringify(plugins)],
    );
    await this.notify(client, row);
    return { row, graph: projectState(structuredClone(graph)), plugins: { table: structuredClone(plugins), problem: null } };
  }

  /** Announces the revision to every listening process; PostgreSQL delivers it only if the transaction commits. */
  private async notify(client: PoolClient, row: ProjectRow): Promise<void> {
    const event = { project: this.projectId, revision: row.revision, fence_generation: row.fence_generation };
    await client.query('SELECT pg_notify($1, $2)', [REVISION_CHANNEL, JSON.stringify(event)]);
  }

  /** Runs `work` after this process's earlier writers of the project have settled. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writers.then(work, work);
    this.writers = run.catch(() => undefined);
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

  constructor(private readonly pool: Pool) {}

  open(projectId: string): PgProjectStore {
    let store = this.opened.get(projectId);
    if (!store) this.opened.set(projectId, (store = new PgProjectStore(this.pool, projectId)));
    return store;
  }

  async list(): Promise<string[]> {
    return (await queryFresh<{ id: string }>(this.pool, 'SELECT id FROM taskdag_projects ORDER BY id', [])).rows.map((row) => row.id);
  }
}
