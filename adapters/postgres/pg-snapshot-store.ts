import type { Pool } from 'pg';
import { DomainError } from '../../domain/errors.js';
import type { Timestamp } from '../../domain/clock.js';
import { projectState } from '../../domain/projection.js';
import type { State } from '../../domain/model.js';
import type { PluginTable } from '../../domain/plugins.js';
import type { StoredState } from '../../application/ports/project-store.js';
import type { SnapshotMetadata, SnapshotReason, SnapshotStore } from '../../application/ports/snapshot-store.js';
import { digestOf, matchesDigest, nextSnapshotStamp, sha256, SNAPSHOT_ID } from '../snapshot-naming.js';
import { decodePluginTable } from '../plugin-table-file.js';
import { assertStateShape } from '../state-validation.js';
import { invalidFile } from '../storage-error.js';
import { databaseError } from './pg-pool.js';

/**
 * A project's snapshots as rows: the raw state (its `state` projection as JSON, or the raw text
 * of a state that does not load) with its metadata and, when the state had policy plugins, its
 * plugin table as JSON, written in one statement, so a snapshot is there whole or not at all.
 * Sizes and sha256s are checked again on load, as for files.
 */
export class PgSnapshotStore implements SnapshotStore {
  /** How many snapshots this instance has taken (the store checks a rewrite took one). */
  taken = 0;

  constructor(
    private readonly pool: Pool,
    private readonly project: string,
    private readonly location: string,
  ) {}

  async take(reason: SnapshotReason, displaced: Exclude<StoredState, { kind: 'absent' }>, now: Timestamp): Promise<SnapshotMetadata> {
    const contents = Buffer.from(displaced.kind === 'valid' ? JSON.stringify(projectState(displaced.state)) + '\n' : displaced.text);
    const table = displaced.kind === 'valid' ? (displaced.plugins ?? {}) : {};
    const plugins = Object.keys(table).length > 0 ? Buffer.from(JSON.stringify(table) + '\n') : null;
    try {
      const newest = await this.pool.query<{ id: string }>('SELECT max(id) AS id FROM taskdag_snapshots WHERE project = $1', [this.project]);
      const id = `${nextSnapshotStamp(now, SNAPSHOT_ID.exec(newest.rows[0]?.id ?? '')?.[1])}-${reason}`;
      const metadata: SnapshotMetadata = {
        id,
        created_at: now,
        reason,
        ...digestOf(contents),
        ...(plugins ? { plugins: digestOf(plugins) } : {}),
      };
      await this.pool.query('INSERT INTO taskdag_snapshots (project, id, metadata, contents, plugins) VALUES ($1, $2, $3, $4, $5)', [
        this.project,
        id,
        metadata,
        contents,
        plugins,
      ]);
      this.taken++;
      return metadata;
    } catch (error) {
      throw databaseError(error);
    }
  }

  async list(): Promise<SnapshotMetadata[]> {
    try {
      const rows = await this.pool.query<{ metadata: SnapshotMetadata }>('SELECT metadata FROM taskdag_snapshots WHERE project = $1 ORDER BY id DESC', [this.project]);
      return rows.rows.map((row) => row.metadata);
    } catch (error) {
      throw databaseError(error);
    }
  }

  async load(id: string): Promise<{ metadata: SnapshotMetadata; state: State; plugins: PluginTable }> {
    if (!SNAPSHOT_ID.test(id)) {
      throw new DomainError('INVALID_ARGUMENT', `${JSON.stringify(id)} is not a snapshot id (see taskdag snapshots)`, { snapshot_id: id });
    }
    let row: { metadata: SnapshotMetadata; contents: Buffer; plugins: Buffer | null } | undefined;
    try {
      row = (await this.pool.query('SELECT metadata, contents, plugins FROM taskdag_snapshots WHERE project = $1 AND id = $2', [this.project, id])).rows[0];
    } catch (error) {
      throw databaseError(error);
    }
    const where = `${this.location}/snapshots/${id}`;
    if (!row) throw new DomainError('STORAGE_ERROR', `No snapshot ${id} (see taskdag snapshots)`, { cause: 'ENOENT', snapshot_id: id });
    const { metadata, contents } = row;
    if (contents.length !== metadata.bytes) throw invalidFile(where, `it has ${contents.length} bytes, its metadata says ${metadata.bytes}`);
    if (sha256(contents) !== metadata.sha256) throw invalidFile(where, 'its sha256 does not match its metadata');
    let state: unknown;
    try {
      state = JSON.parse(contents.toString('utf8'));
    } catch {
      throw invalidFile(where, 'it is not JSON');
    }
    assertStateShape(state, where);
    return { metadata, state, plugins: snapshotPlugins(metadata, row.plugins, where) };
  }
}

/** The plugin table kept with a snapshot ({} without one), once its size and sha256 match the metadata's. */
function snapshotPlugins(metadata: SnapshotMetadata, contents: Buffer | null, where: string): PluginTable {
  if (!metadata.plugins && contents === null) return {};
  const file = `${where}/plugins`;
  if (!metadata.plugins || contents === null || !matchesDigest(contents, metadata.plugins)) {
    throw invalidFile(file, 'its size or sha256 does not match the metadata');
  }
  return decodePluginTable(contents, file);
}
