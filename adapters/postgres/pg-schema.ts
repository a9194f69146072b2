import type { Pool } from 'pg';
import { DomainError } from '../../domain/errors.js';
import { withTransaction } from './pg-pool.js';

/**
 * The schema, as numbered migrations applied in order (docs/scaling.md). Each only adds: a
 * migration never drops or rewrites data, so applying one is never destructive. A database
 * whose schema is newer than this program knows is refused, never downgraded.
 */
const MIGRATIONS: readonly string[] = [
  // 1: projects with their revision, the graph as rows (JSON kept as written, key order included), the append-only log, snapshots, sessions,
  // and a place for plugin data (one JSON document per plugin and key, written by its plugin).
  `
  CREATE TABLE taskdag_projects (
    id text PRIMARY KEY,
    version integer NOT NULL,
    fence_generation bigint NOT NULL,
    revision bigint NOT NULL,
    -- Bumped by every whole replacement (init --force, restore, push): a cached graph of another
    -- incarnation is reloaded whole rather than caught up.
    incarnation bigint NOT NULL,
    log_length bigint NOT NULL,
    -- The revision that last changed an edge, so a cache reloads edges only when they changed.
    edges_revision bigint NOT NULL
  );
  CREATE TABLE taskdag_nodes (
    project text NOT NULL REFERENCES taskdag_projects (id),
    id text NOT NULL,
    position bigserial,
    revision bigint NOT NULL,
    node json NOT NULL,
    PRIMARY KEY (project, id)
  );
  CREATE INDEX taskdag_nodes_changed ON taskdag_nodes (project, revision);
  -- Notes appended to a node since it was last written whole (a note is one row, not the node).
  CREATE TABLE taskdag_notes (
    project text NOT NULL REFERENCES taskdag_projects (id),
    node text NOT NULL,
    seq bigserial,
    -- The commit's revision (what a cache catches up by), then the node's own new revision and time.
    revision bigint NOT NULL,
    node_revision bigint NOT NULL,
    updated_at text NOT NULL,
    note json NOT NULL,
    PRIMARY KEY (project, seq)
  );
  CREATE INDEX taskdag_notes_node ON taskdag_notes (project, node);
  CREATE INDEX taskdag_notes_changed ON taskdag_notes (project, revision);
  CREATE TABLE taskdag_edges (
    project text NOT NULL REFERENCES taskdag_projects (id),
    position bigserial,
    from_id text NOT NULL,
    to_id text NOT NULL,
    type text NOT NULL,
    PRIMARY KEY (project, position)
  );
  CREATE INDEX taskdag_edges_pair ON taskdag_edges (project, from_id, to_id, type);
  CREATE TABLE taskdag_initiatives (
    project text NOT NULL REFERENCES taskdag_projects (id),
    name text NOT NULL,
    position bigserial,
    revision bigint NOT NULL,
    initiative json NOT NULL,
    PRIMARY KEY (project, name)
  );
  CREATE TABLE taskdag_log (
    project text NOT NULL REFERENCES taskdag_projects (id),
    seq bigint NOT NULL,
    entry json NOT NULL,
    PRIMARY KEY (project, seq)
  );
  CREATE TABLE taskdag_snapshots (
    project text NOT NULL,
    id text NOT NULL,
    metadata json NOT NULL,
    contents bytea NOT NULL,
    PRIMARY KEY (project, id)
  );
  CREATE TABLE taskdag_plugin_data (
    project text NOT NULL REFERENCES taskdag_projects (id),
    plugin text NOT NULL,
    key text NOT NULL,
    value json NOT NULL,
    PRIMARY KEY (project, plugin, key)
  );
  CREATE TABLE taskdag_auth (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    verifier json NOT NULL
  );
  CREATE TABLE taskdag_sessions (
    bearer_hash text PRIMARY KEY,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX taskdag_sessions_expiry ON taskdag_sessions (expires_at);
  `,
  // 2: a snapshot keeps the plugin table of the state it saved (docs/plugins.md), its size and
  // sha256 in the metadata; null for a state without plugins, as every snapshot taken before.
  `
  ALTER TABLE taskdag_snapshots ADD COLUMN plugins bytea;
  `,
  // 3: bound credentials (docs/operating.md, "Identities"): each names the agents its bearers may
  // act as; a session opened by one records its id, and goes with it when it is removed.
  `
  CREATE TABLE taskdag_credentials (
    name text PRIMARY KEY,
    id text NOT NULL UNIQUE,
    agents json NOT NULL,
    verifier json NOT NULL,
    created_at timestamptz NOT NULL
  );
  ALTER TABLE taskdag_sessions ADD COLUMN credential text REFERENCES taskdag_credentials (id) ON DELETE CASCADE;
  `,
  // 4: the password generation that set the verifier (docs/scaling.md): a process replaces the
  // verifier only with a newer one, so a host with an old server.env cannot roll a rotation back.
  // 0 for a verifier stored before, as for a server.env without the line.
  `
  ALTER TABLE taskdag_auth ADD COLUMN generation bigint NOT NULL DEFAULT 0;
  `,
  // 5: the ledger model of the file store (docs/scaling.md): each commit is one row of an
  // append-only table of change sets, and the graph is also kept in periodic checkpoints. A change
  // set is keyed by the revision it makes, and also unique by the revision it was made on, so the
  // insert is the compare-and-set: of two commits made on one revision, one lands. Its incarnation
  // is a foreign key, so a commit made on a project replaced meanwhile does not land either. Each
  // project's rows of schema 1 (nodes, notes, edges, initiatives, log) become the one change set
  // its incarnation starts with, made on an empty graph; those tables are kept as they are, and
  // no longer read or written.
  `
  ALTER TABLE taskdag_projects ADD CONSTRAINT taskdag_projects_incarnation UNIQUE (id, incarnation);
  CREATE TABLE taskdag_change_sets (
    project text NOT NULL,
    incarnation bigint NOT NULL,
    -- The revision the change set was made on (-1: the one an incarnation starts with, on an empty graph).
    base_revision bigint NOT NULL,
    revision bigint NOT NULL,
    change json NOT NULL,
    PRIMARY KEY (project, revision),
    UNIQUE (project, base_revision),
    FOREIGN KEY (project, incarnation) REFERENCES taskdag_projects (id, incarnation)
  );
  CREATE TABLE taskdag_checkpoints (
    project text NOT NULL,
    incarnation bigint NOT NULL,
    revision bigint NOT NULL,
    -- The checkpoint file's format (docs/storage.md), as of the change set that made its revision.
    checkpoint bytea NOT NULL,
    PRIMARY KEY (project, revision),
    FOREIGN KEY (project, incarnation) REFERENCES taskdag_projects (id, incarnation)
  );
  INSERT INTO taskdag_change_sets (project, incarnation, base_revision, revision, change)
  SELECT p.id, p.incarnation, -1, p.revision, json_build_object(
    'revision', p.revision,
    'log', COALESCE((SELECT json_agg(l.entry ORDER BY l.seq) FROM taskdag_log l WHERE l.project = p.id), '[]'::json),
    'nodes', COALESCE((SELECT json_object_agg(n.id, n.node ORDER BY n.position) FROM taskdag_nodes n WHERE n.project = p.id), '{}'::json),
    'notes', COALESCE((
      SELECT json_agg(json_build_object('node', o.node, 'note', o.note, 'revision', o.node_revision, 'updated_at', o.updated_at) ORDER BY o.seq)
      FROM taskdag_notes o WHERE o.project = p.id), '[]'::json),
    'edges', COALESCE((
      SELECT json_agg(json_build_object('op', 'add', 'edge', json_build_object('from', e.from_id, 'to', e.to_id, 'type', e.type)) ORDER BY e.position)
      FROM taskdag_edges e WHERE e.project = p.id), '[]'::json),
    'initiatives', COALESCE((SELECT json_object_agg(i.name, i.initiative ORDER BY i.position) FROM taskdag_initiatives i WHERE i.project = p.id), '{}'::json)
  ) FROM taskdag_projects p;
  `,
  // 6: a bearer check is answered from what the process found before (adapters/postgres/pg-auth-cache.ts),
  // so every change to the sessions or credentials that could end a bearer, by whoever makes it
  // (a rotation, a credential removed and its sessions with it, an operator's DELETE, a process of
  // an older taskdag), notifies every process, once per statement, in the changing transaction.
  `
  CREATE FUNCTION taskdag_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('taskdag_auth_changes', TG_TABLE_NAME);
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER taskdag_sessions_changed AFTER UPDATE OR DELETE OR TRUNCATE ON taskdag_sessions FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_credentials_changed AFTER UPDATE OR DELETE OR TRUNCATE ON taskdag_credentials FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  `,
  // 7: one owning process per project (docs/scaling.md, "Failover"). Each server process has a
  // lease (expires_at), the address the others forward to, and the key of an advisory lock its
  // session holds while it lives; a project's owner row names its process and a fencing token,
  // raised by every takeover, which every commit checks in its INSERT.
  `
  CREATE TABLE taskdag_processes (
    id text PRIMARY KEY,
    address text NOT NULL,
    lock_key bigint NOT NULL,
    expires_at timestamptz NOT NULL
  );
  CREATE TABLE taskdag_owners (
    project text PRIMARY KEY,
    process text NOT NULL,
    fence bigint NOT NULL
  );
  `,
  // 8: incremental checkpoints (docs/scaling.md, "How the store works"). A checkpoint's bytes are
  // cut into pieces by their content, each stored once per project under its SHA-256; a manifest
  // row per checkpoint and its references list the pieces in order, so a save writes only the
  // pieces whose bytes changed. The references' foreign keys make a manifest naming a missing
  // piece impossible. Each checkpoint of schema 7 becomes a manifest of pieces of 1 MiB (read
  // whole once, not decompressed again for each piece); taskdag_checkpoints is kept as it is, no
  // longer read, and a project's rows there go when its next checkpoint is saved.
  `
  CREATE TABLE taskdag_checkpoint_pieces (
    project text NOT NULL,
    hash bytea NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (project, hash)
  );
  CREATE TABLE taskdag_checkpoint_manifests (
    project text NOT NULL,
    incarnation bigint NOT NULL,
    revision bigint NOT NULL,
    -- How many pieces, and their bytes in all: what a load checks it received.
    pieces integer NOT NULL,
    bytes bigint NOT NULL,
    PRIMARY KEY (project, revision),
    FOREIGN KEY (project, incarnation) REFERENCES taskdag_projects (id, incarnation)
  );
  CREATE TABLE taskdag_checkpoint_piece_refs (
    project text NOT NULL,
    revision bigint NOT NULL,
    position integer NOT NULL,
    hash bytea NOT NULL,
    PRIMARY KEY (project, revision, position),
    FOREIGN KEY (project, revision) REFERENCES taskdag_checkpoint_manifests (project, revision) ON DELETE CASCADE,
    FOREIGN KEY (project, hash) REFERENCES taskdag_checkpoint_pieces (project, hash)
  );
  CREATE INDEX taskdag_checkpoint_piece_refs_hash ON taskdag_checkpoint_piece_refs (project, hash);
  CREATE TEMPORARY TABLE taskdag_schema_8_pieces ON COMMIT DROP AS
    SELECT c.project, c.revision, cut.position, substring(whole.bytes FROM cut.position * 1048576 + 1 FOR 1048576) AS bytes
    FROM taskdag_checkpoints c,
      LATERAL (SELECT c.checkpoint || ''::bytea AS bytes OFFSET 0) whole,
      LATERAL generate_series(0, (octet_length(whole.bytes) - 1) / 1048576) AS cut (position);
  INSERT INTO taskdag_checkpoint_pieces (project, hash, bytes)
    SELECT DISTINCT ON (project, sha256(bytes)) project, sha256(bytes), bytes FROM taskdag_schema_8_pieces;
  INSERT INTO taskdag_checkpoint_manifests (project, incarnation, revision, pieces, bytes)
    SELECT project, incarnation, revision, (octet_length(checkpoint) + 1048575) / 1048576, octet_length(checkpoint) FROM taskdag_checkpoints;
  INSERT INTO taskdag_checkpoint_piece_refs (project, revision, position, hash)
    SELECT project, revision, position, sha256(bytes) FROM taskdag_schema_8_pieces;
  `,
  // 9: a commit notifies the revision channel only while some process hears it (docs/scaling.md,
  // "Live events"): PostgreSQL serializes every committing transaction that notified, on every
  // database of the cluster, on one lock held through its WAL flush, so commits that notify for
  // nobody cannot share a flush. A process hearing the channel says so in its row, and every
  // owner row then says that its project's commits are to notify; existing rows start true, so
  // every commit notifies, as before, until a process recomputes them.
  `
  ALTER TABLE taskdag_processes ADD COLUMN hearing boolean NOT NULL DEFAULT false;
  ALTER TABLE taskdag_owners ADD COLUMN notify boolean NOT NULL DEFAULT true;
  `,
  // 10: the triggers of schema 6 notify only for a statement that updated or deleted a row (or a
  // TRUNCATE): every login deletes the expired sessions, usually none, and each notification made
  // every process drop the bearers it had found and took the cluster's notify lock (schema 9).
  // Still once per statement. A transition table names one event, so each event has its trigger.
  `
  CREATE OR REPLACE FUNCTION taskdag_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- A TRUNCATE trigger has no transition table: its branch never plans the EXISTS.
    IF TG_OP = 'TRUNCATE' THEN
      PERFORM pg_notify('taskdag_auth_changes', TG_TABLE_NAME);
    ELSIF EXISTS (SELECT 1 FROM taskdag_changed_rows) THEN
      PERFORM pg_notify('taskdag_auth_changes', TG_TABLE_NAME);
    END IF;
    RETURN NULL;
  END
  $$;
  DROP TRIGGER taskdag_sessions_changed ON taskdag_sessions;
  DROP TRIGGER taskdag_credentials_changed ON taskdag_credentials;
  CREATE TRIGGER taskdag_sessions_updated AFTER UPDATE ON taskdag_sessions REFERENCING OLD TABLE AS taskdag_changed_rows FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_sessions_deleted AFTER DELETE ON taskdag_sessions REFERENCING OLD TABLE AS taskdag_changed_rows FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_sessions_truncated AFTER TRUNCATE ON taskdag_sessions FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_credentials_updated AFTER UPDATE ON taskdag_credentials REFERENCING OLD TABLE AS taskdag_changed_rows FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_credentials_deleted AFTER DELETE ON taskdag_credentials REFERENCING OLD TABLE AS taskdag_changed_rows FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  CREATE TRIGGER taskdag_credentials_truncated AFTER TRUNCATE ON taskdag_credentials FOR EACH STATEMENT EXECUTE FUNCTION taskdag_auth_changed();
  `,
  // 11: a project's commits notify only while some process hears that project (docs/scaling.md,
  // "Live events"), not every project's while any process hears one. A hearing process names
  // the projects it hears here; one with `hearing` and no rows (a process of the release before)
  // hears them all. Its rows go with its row.
  `
  CREATE TABLE taskdag_hearings (
    process text NOT NULL REFERENCES taskdag_processes (id) ON DELETE CASCADE,
    project text NOT NULL,
    PRIMARY KEY (process, project)
  );
  CREATE INDEX taskdag_hearings_project ON taskdag_hearings (project);
  `,
  // 12: change sets are compressed with lz4 where the database has it (PostgreSQL 14 and later
  // built with it, the probe the checkpoint pieces' saves make): compressing a commit's 8 KB with
  // the default, pglz, was a fifth of the database's CPU a commit, and every commit waits for it
  // (BENCHMARKS.md, "twelfth pass"). Only the column's setting changes: each value stored says how
  // it was compressed, so the rows stored before stay as they are and read as before, and a
  // database without lz4 keeps pglz. The statement is run as text, as PostgreSQL 12 and 13 do not parse it.
  `
  DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
      EXECUTE 'ALTER TABLE taskdag_change_sets ALTER COLUMN change SET COMPRESSION lz4';
    END IF;
  END $$;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any fixed number: every process that migrates takes this transaction-scoped advisory lock first. */
const MIGRATION_LOCK = 0x74a5_6d61;

/** The schema version a database holds: 0 for none (an empty database). */
export async function schemaVersion(pool: Pool): Promise<number> {
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('taskdag_schema') IS NOT NULL AS exists");
  if (!table.rows[0]!.exists) return 0;
  const result = await pool.query<{ version: number | null }>('SELECT max(version) AS version FROM taskdag_schema');
  return result.rows[0]!.version ?? 0;
}

/**
 * Brings the schema up to SCHEMA_VERSION (or `target`: a test that makes a database of an older
 * schema), each migration in its own transaction under an advisory lock (several processes
 * starting at once apply each migration once). Refuses a newer schema. Returns the versions it applied.
 */
export async function migrate(pool: Pool, target = SCHEMA_VERSION): Promise<number[]> {
  const applied: number[] = [];
  for (;;) {
    const version = await withTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS taskdag_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const current = (await client.query<{ version: number | null }>('SELECT max(version) AS version FROM taskdag_schema')).rows[0]!.version ?? 0;
      if (current > SCHEMA_VERSION) throw schemaTooNew(current);
      if (current >= target) return null;
      await client.query(MIGRATIONS[current]!);
      await client.query('INSERT INTO taskdag_schema (version) VALUES ($1)', [current + 1]);
      return current + 1;
    });
    if (version === null) return applied;
    applied.push(version);
  }
}

export function schemaTooNew(version: number): DomainError {
  return new DomainError(
    'STORAGE_ERROR',
    `The database holds taskdag schema ${version}, newer than this taskdag knows (${SCHEMA_VERSION}): upgrade taskdag on this host, never the other way round`,
    { cause: 'ESCHEMA', schema_version: version, supported: SCHEMA_VERSION },
  );
}
