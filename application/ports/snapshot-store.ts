import type { Timestamp } from '../../domain/clock.js';
import type { State } from '../../domain/model.js';
import type { PluginTable } from '../../domain/plugins.js';
import type { StoredState } from './stored-state.js';

/** Why a snapshot was taken (spec 2.5, plus `pre-migrate` for the backup `migrate` takes). */
export type SnapshotReason = 'force-init' | 'corrupt-recovery' | 'pre-restore' | 'pre-migrate';

/** The metadata half of a snapshot pair (spec 2.5). */
export interface SnapshotMetadata {
  id: string;
  created_at: Timestamp;
  reason: SnapshotReason;
  bytes: number;
  sha256: string;
  /**
   * For a snapshot of a state that did not load: the other raw files kept beside it
   * (`<id>.<ledger file>`), each with its size and sha256, so the digest covers every file.
   */
  raw_files?: RawFile[];
  /** When the state had policy plugins: the size and sha256 of `<id>.plugins.json`, their table and data. */
  plugins?: { bytes: number; sha256: string };
}

export interface RawFile {
  name: string;
  bytes: number;
  sha256: string;
}

/**
 * A project's recoverable snapshots. `take` is called under the project's exclusive lock, before
 * the state it saves is displaced, and is durable when it resolves.
 */
export interface SnapshotStore {
  /** Saves a readable state as its `state` projection (and its plugin table, if any), an unreadable one as its raw files. */
  take(reason: SnapshotReason, displaced: Exclude<StoredState, { kind: 'absent' }>, now: Timestamp): Promise<SnapshotMetadata>;
  /** Complete pairs whose metadata id matches their file name, newest first. */
  list(): Promise<SnapshotMetadata[]>;
  /** A snapshot's state and plugin table ({} when it had none), once the pair, its size, its sha256 and every collection are checked. */
  load(id: string): Promise<{ metadata: SnapshotMetadata; state: State; plugins: PluginTable }>;
}
