import path from 'node:path';
import { DomainError } from '../domain/errors.js';
import { isTimestamp, type Timestamp } from '../domain/clock.js';
import { projectState } from '../domain/projection.js';
import type { State } from '../domain/model.js';
import type { PluginTable } from '../domain/plugins.js';
import type { StoredState } from '../application/ports/project-store.js';
import type { RawFile, SnapshotMetadata, SnapshotReason, SnapshotStore } from '../application/ports/snapshot-store.js';
import { readIfExists, removeLeftoverTempFiles, writeFileAtomic } from './durable-files.js';
import { nodeFileSystem, type FileSystem } from './file-system.js';
import { salvageHeader } from './checkpoint-file.js';
import { replayFromCreation } from './ledger-recovery.js';
import { decodePluginTable, pluginFileOf } from './plugin-table-file.js';
import { assertStateShape } from './state-validation.js';
import { invalidFile, storageError } from './storage-error.js';
import { digestOf, matchesDigest, nextSnapshotStamp, sha256, SNAPSHOT_ID, SNAPSHOT_REASONS as REASONS } from './snapshot-naming.js';

const STATE_SUFFIX = '.state.json';
const META_SUFFIX = '.meta.json';
const PLUGINS_SUFFIX = '.plugins.json';
/** The raw files an unreadable state's snapshot copies beside it (as `<id>.<name>`). */
const RAW_FILE = /^(ledger\.\d+\.jsonl|plugins\.\d+\.json)$/;

/**
 * Snapshots as pairs in `<state-dir>/snapshots/`: `<id>.state.json` (the raw state) and
 * `<id>.meta.json` (its metadata), and `<id>.plugins.json` (its plugin table) when it had
 * policy plugins, covered by the metadata's digest. The state is written first and the metadata
 * last, each atomically, so a pair is complete exactly when its metadata exists. A snapshot of an
 * unreadable state keeps the raw checkpoint as its state and copies each ledger (and plugin
 * table) beside it as `<id>.<file name>`; loading it replays its ledger when that ledger reaches
 * back to the state's creation (ledger-recovery.ts).
 */
export class FsSnapshotStore implements SnapshotStore {
  private readonly dir: string;
  /** How many snapshots this instance has taken (the store checks a rewrite took one). */
  taken = 0;

  constructor(
    private readonly stateDir: string,
    private readonly checkpointName: string,
    private readonly files: FileSystem = nodeFileSystem,
  ) {
    this.dir = path.join(stateDir, 'snapshots');
  }

  async take(reason: SnapshotReason, displaced: Exclude<StoredState, { kind: 'absent' }>, now: Timestamp): Promise<SnapshotMetadata> {
    try {
      this.files.makeDirectory(this.dir);
      removeLeftoverTempFiles(this.files, this.dir);
      const id = `${this.nextStamp(now)}-${reason}`;
      const raw = displaced.kind === 'valid' ? null : this.preserveRawFiles(id);
      const contents = displaced.kind === 'valid' ? Buffer.from(JSON.stringify(projectState(displaced.state)) + '\n') : raw!.checkpoint;
      writeFileAtomic(this.files, this.file(id, STATE_SUFFIX), contents);
      const plugins = displaced.kind === 'valid' ? this.savePlugins(id, displaced.plugins ?? {}) : null;
      const metadata: SnapshotMetadata = {
        id,
        created_at: now,
        reason,
        ...digestOf(contents),
        ...(raw ? { raw_files: raw.files } : {}),
        ...(plugins ? { plugins } : {}),
      };
      writeFileAtomic(this.files, this.file(id, META_SUFFIX), JSON.stringify(metadata) + '\n');
      this.taken++;
      return metadata;
    } catch (error) {
      throw storageError('Cannot take a snapshot', error, { path: this.dir, reason });
    }
  }

  async list(): Promise<SnapshotMetadata[]> {
    let names: string[];
    try {
      names = this.files.list(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storageError('Cannot list the snapshots', error, { path: this.dir });
    }
    const present = new Set(names);
    const snapshots: SnapshotMetadata[] = [];
    for (const name of names) {
      if (!name.endsWith(META_SUFFIX)) continue;
      const id = name.slice(0, -META_SUFFIX.length);
      if (!present.has(id + STATE_SUFFIX)) continue;
      const metadata = this.readMetadataIfValid(id);
      if (metadata) snapshots.push(metadata);
    }
    return snapshots.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  async load(id: string): Promise<{ metadata: SnapshotMetadata; state: State; plugins: PluginTable }> {
    if (!SNAPSHOT_ID.test(id)) {
      throw new DomainError('INVALID_ARGUMENT', `${JSON.stringify(id)} is not a snapshot id (see taskdag snapshots)`, { snapshot_id: id });
    }
    const metaFile = this.file(id, META_SUFFIX);
    const stateFile = this.file(id, STATE_SUFFIX);
    const metadata = this.readMetadata(id);
    const contents = this.readBytes(stateFile, id);
    if (contents.length !== metadata.bytes) throw invalidFile(stateFile, `it has ${contents.length} bytes, its metadata says ${metadata.bytes}`);
    if (sha256(contents) !== metadata.sha256) throw invalidFile(stateFile, `its sha256 does not match ${metaFile}`);
    if (metadata.raw_files) return { metadata, ...this.recover(metadata, metadata.raw_files, contents) };
    let state: unknown;
    try {
      state = JSON.parse(contents.toString('utf8'));
    } catch {
      throw invalidFile(stateFile, 'it is not JSON');
    }
    assertStateShape(state, stateFile);
    return { metadata, state, plugins: this.loadPlugins(metadata) };
  }

  /**
   * The state of a snapshot of raw files: the ledger the raw checkpoint names (the newest kept
   * when it names none) replayed from the state's creation, with that generation's plugin table.
   * Every copy used is checked against its digest first.
   */
  private recover(metadata: SnapshotMetadata, rawFiles: RawFile[], checkpoint: Buffer): { state: State; plugins: PluginTable } {
    // Only names of this snapshot's own copies: the metadata never leads a read elsewhere.
    const prefix = `${metadata.id}.`;
    const copies = new Map(rawFiles.filter((file) => file.name.startsWith(prefix) && RAW_FILE.test(file.name.slice(prefix.length))).map((file) => [file.name.slice(prefix.length), file]));
    const named = salvageHeader(checkpoint)?.ledger?.file;
    const ledgers = [...copies.keys()].filter((name) => /^ledger\.\d+\.jsonl$/.test(name)).sort((a, b) => generation(a) - generation(b));
    const ledger = typeof named === 'string' && copies.has(named) ? named : ledgers.pop();
    const stateFile = this.file(metadata.id, STATE_SUFFIX);
    if (ledger === undefined) throw invalidFile(stateFile, 'its snapshot keeps no ledger to replay: its files are kept for recovery by hand');
    const state = replayFromCreation(this.rawFile(metadata.id, copies.get(ledger)!), this.file(metadata.id, `.${ledger}`));
    assertStateShape(state, stateFile);
    const table = copies.get(pluginFileOf(ledger));
    return { state, plugins: table ? decodePluginTable(this.rawFile(metadata.id, table), path.join(this.dir, table.name)) : {} };
  }

  /** A raw file kept beside a snapshot, once its size and sha256 match the metadata's. */
  private rawFile(id: string, raw: RawFile): Buffer {
    const file = path.join(this.dir, raw.name);
    const contents = this.readBytes(file, id);
    if (!matchesDigest(contents, raw)) throw invalidFile(file, `its size or sha256 does not match ${this.file(id, META_SUFFIX)}`);
    return contents;
  }

  /** The plugin table beside the state, when there is one; its size and digest for the metadata. */
  private savePlugins(id: string, table: PluginTable): SnapshotMetadata['plugins'] | null {
    if (Object.keys(table).length === 0) return null;
    const contents = Buffer.from(JSON.stringify(table) + '\n');
    writeFileAtomic(this.files, this.file(id, PLUGINS_SUFFIX), contents);
    return digestOf(contents);
  }

  private loadPlugins(metadata: SnapshotMetadata): PluginTable {
    if (!metadata.plugins) return {};
    const file = this.file(metadata.id, PLUGINS_SUFFIX);
    const contents = this.readBytes(file, metadata.id);
    if (!matchesDigest(contents, metadata.plugins)) {
      throw invalidFile(file, `its size or sha256 does not match ${this.file(metadata.id, META_SUFFIX)}`);
    }
    return decodePluginTable(contents, file);
  }

  /** A stamp after every existing snapshot's, so that ids sort by creation even within one millisecond. */
  private nextStamp(now: Timestamp): string {
    const newest = this.files
      .list(this.dir)
      .map((name) => SNAPSHOT_ID.exec(name.split('.')[0]!)?.[1])
      .filter((existing): existing is string => existing !== undefined)
      .sort()
      .pop();
    return nextSnapshotStamp(now, newest);
  }

  /**
   * Copies each ledger beside the snapshot, durably (written, fsynced, renamed, directory fsynced)
   * before anything may replace the originals, and returns the raw checkpoint (empty when it is
   * missing) with the copies' digests.
   */
  private preserveRawFiles(id: string): { checkpoint: Buffer; files: RawFile[] } {
    const files: RawFile[] = [];
    for (const name of this.files.list(this.stateDir).sort()) {
      if (!RAW_FILE.test(name)) continue;
      const bytes = this.files.read(path.join(this.stateDir, name));
      const copy = `${id}.${name}`;
      writeFileAtomic(this.files, path.join(this.dir, copy), bytes);
      files.push({ name: copy, ...digestOf(bytes) });
    }
    return { checkpoint: readIfExists(this.files, path.join(this.stateDir, this.checkpointName)) ?? Buffer.alloc(0), files };
  }

  private readMetadataIfValid(id: string): SnapshotMetadata | null {
    try {
      return this.readMetadata(id);
    } catch {
      return null;
    }
  }

  private readMetadata(id: string): SnapshotMetadata {
    const file = this.file(id, META_SUFFIX);
    let text: string | null;
    try {
      text = readIfExists(this.files, file)?.toString('utf8') ?? null;
    } catch (error) {
      throw storageError('Cannot read the snapshot metadata', error, { path: file, snapshot_id: id });
    }
    if (text === null) {
      throw new DomainError('STORAGE_ERROR', `No snapshot ${id} (see taskdag snapshots)`, { cause: 'ENOENT', path: file, snapshot_id: id });
    }
    let value: Partial<SnapshotMetadata>;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidFile(file, 'it is not JSON');
    }
    if (typeof value !== 'object' || value === null) throw invalidFile(file, 'it is not an object');
    if (value.id !== id) throw invalidFile(file, `its id ${JSON.stringify(value.id)} does not match its file name`);
    if (!REASONS.includes(value.reason as SnapshotReason)) throw invalidFile(file, `its reason ${JSON.stringify(value.reason)} is unknown`);
    if (!isTimestamp(value.created_at)) throw invalidFile(file, 'its created_at is not a timestamp');
    if (!Number.isInteger(value.bytes) || value.bytes! < 0) throw invalidFile(file, 'its bytes is not a size');
    if (typeof value.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(value.sha256)) throw invalidFile(file, 'its sha256 is not a hex digest');
    const { created_at, reason, bytes, sha256: digest, raw_files: rawFiles, plugins } = value as SnapshotMetadata;
    if (rawFiles !== undefined && !(Array.isArray(rawFiles) && rawFiles.every(isRawFile))) throw invalidFile(file, 'its raw_files is malformed');
    if (plugins !== undefined && !isDigest(plugins)) throw invalidFile(file, 'its plugins is malformed');
    return { id, created_at, reason, bytes, sha256: digest, ...(rawFiles ? { raw_files: rawFiles } : {}), ...(plugins ? { plugins: { bytes: plugins.bytes, sha256: plugins.sha256 } } : {}) };
  }

  private readBytes(file: string, id: string): Buffer {
    try {
      return this.files.read(file);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw storageError(missing ? `Snapshot ${id} is incomplete: ${path.basename(file)} is missing` : 'Cannot read the snapshot', error, {
        path: file,
        snapshot_id: id,
      });
    }
  }

  private file(id: string, suffix: string): string {
    return path.join(this.dir, id + suffix);
  }
}

function generation(ledgerFile: string): number {
  return Number(/\d+/.exec(ledgerFile)![0]);
}

function isRawFile(value: unknown): value is RawFile {
  return isDigest(value) && typeof (value as Partial<RawFile>).name === 'string';
}

function isDigest(value: unknown): value is { bytes: number; sha256: string } {
  const file = value as Partial<RawFile> | null;
  return typeof file === 'object' && file !== null && Number.isInteger(file.bytes) && /^[0-9a-f]{64}$/.test(String(file.sha256));
}
