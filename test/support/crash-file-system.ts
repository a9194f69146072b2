import path from 'node:path';
import type { FileSystem, OpenFile } from '../../adapters/file-system.js';

/** Thrown by a CrashFileSystem at its crash point: the power went out before that operation. */
export class PowerLoss extends Error {
  constructor(readonly operation: number) {
    super(`power lost before file operation ${operation}`);
  }
}

/** A seeded generator (mulberry32): the same seed replays the same crash. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Inode {
  /** What readers see now. */
  live: Buffer;
  /** What a power loss is sure to keep (the content as of the last sync). */
  synced: Buffer;
}

type Directory = Map<string, Inode>;

/**
 * An in-memory file system that keeps written-but-unsynced data apart, as SQLite's crash-test
 * VFS and LazyFS do. Every file's content has a live and a synced version; every directory has
 * live and synced entries. `crashAt(n)` makes the n-th mutating operation throw PowerLoss
 * instead of running; `afterPowerLoss(random)` then gives the disk as it comes back: synced data
 * kept, and each unsynced change (file content, directory entry) independently dropped, kept, or
 * for file content torn (a prefix of the new bytes, the rest of the new size zeros or cut).
 */
export class CrashFileSystem implements FileSystem {
  private readonly live = new Map<string, Directory>();
  private readonly synced = new Map<string, Directory>();
  private operations = 0;
  private crashPoint = Number.POSITIVE_INFINITY;

  /** How many mutating operations ran so far. */
  get operationCount(): number {
    return this.operations;
  }

  crashAt(operation: number): void {
    this.crashPoint = operation;
  }

  read(file: string): Buffer {
    return Buffer.from(this.inode(file).live);
  }

  readFrom(file: string, start: number): Buffer {
    return Buffer.from(this.inode(file).live.subarray(start));
  }

  /** What the file holds now, kept as it is (as an open descriptor keeps a replaced inode). */
  open(file: string): OpenFile {
    const content = Buffer.from(this.inode(file).live);
    return { size: content.length, bytes: (start, end) => Buffer.from(content.subarray(start, end)), close: () => {} };
  }

  size(file: string): number {
    return this.inode(file).live.length;
  }

  exists(file: string): boolean {
    return this.live.has(file) || this.live.get(path.dirname(file))?.has(path.basename(file)) === true;
  }

  list(dir: string): string[] {
    const entries = this.live.get(dir);
    if (!entries) throw missing(dir);
    return [...entries.keys()];
  }

  makeDirectory(dir: string): void {
    this.step();
    for (let at = dir; !this.live.has(at); at = path.dirname(at)) {
      this.live.set(at, new Map());
      this.synced.set(at, new Map()); // durable, as the real makeDirectory syncs each new entry's parent
    }
  }

  write(file: string, data: Buffer | string | readonly Buffer[], _mode: number): void {
    this.step();
    const entries = this.directoryOf(file);
    const bytes = typeof data === 'string' ? Buffer.from(data) : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
    const existing = entries.get(path.basename(file));
    if (existing) existing.live = bytes;
    else entries.set(path.basename(file), { live: bytes, synced: Buffer.alloc(0) });
  }

  writeAt(file: string, data: Buffer, position: number): void {
    this.step();
    const inode = this.inode(file);
    const kept = inode.live.subarray(0, position);
    inode.live = Buffer.concat([kept, Buffer.alloc(position - kept.length), data]);
  }

  sync(file: string): void {
    this.step();
    const inode = this.inode(file);
    inode.synced = Buffer.from(inode.live);
  }

  async syncInBackground(file: string): Promise<void> {
    this.sync(file);
  }

  async writeInBackground(file: string, pieces: readonly Buffer[], mode: number): Promise<void> {
    this.write(file, Buffer.concat(pieces), mode);
    this.sync(file);
  }

  rename(from: string, to: string): void {
    this.step();
    const inode = this.inode(from);
    this.directoryOf(from).delete(path.basename(from));
    this.directoryOf(to).set(path.basename(to), inode);
  }

  remove(file: string): void {
    this.step();
    this.live.get(path.dirname(file))?.delete(path.basename(file));
  }

  syncDirectory(dir: string): void {
    this.step();
    const entries = this.live.get(dir);
    if (!entries) throw missing(dir);
    this.synced.set(dir, new Map(entries));
  }

  /** The disk after the power comes back (see the class comment); a new file system, nothing armed. */
  afterPowerLoss(random: () => number): CrashFileSystem {
    const disk = new CrashFileSystem();
    for (const [dir, synced] of this.synced) {
      const entries: Directory = new Map();
      const live = this.live.get(dir) ?? new Map<string, Inode>();
      for (const name of new Set([...synced.keys(), ...live.keys()])) {
        const inode = synced.get(name) === live.get(name) || random() < 0.5 ? synced.get(name) : live.get(name);
        if (inode) entries.set(name, { live: survivingContent(inode, random), synced: Buffer.alloc(0) });
      }
      for (const inode of entries.values()) inode.synced = inode.live;
      disk.live.set(dir, entries);
      disk.synced.set(dir, new Map(entries));
    }
    return disk;
  }

  private step(): void {
    this.operations++;
    if (this.operations >= this.crashPoint) {
      this.crashPoint = Number.POSITIVE_INFINITY;
      throw new PowerLoss(this.operations);
    }
  }

  private directoryOf(file: string): Directory {
    const entries = this.live.get(path.dirname(file));
    if (!entries) throw missing(file);
    return entries;
  }

  private inode(file: string): Inode {
    const inode = this.live.get(path.dirname(file))?.get(path.basename(file));
    if (!inode) throw missing(file);
    return inode;
  }
}

/** Synced bytes are kept; unsynced ones are all kept, all lost, or torn (a prefix, then zeros or nothing). */
function survivingContent(inode: Inode, random: () => number): Buffer {
  const { live, synced } = inode;
  if (live.equals(synced)) return Buffer.from(live);
  const choice = random();
  if (choice < 0.3) return Buffer.from(synced);
  if (choice < 0.5) return Buffer.from(live);
  let common = 0;
  while (common < live.length && common < synced.length && live[common] === synced[common]) common++;
  const cut = common + Math.floor(random() * (live.length - common + 1));
  const zeros = random() < 0.5 ? live.length - cut : 0;
  return Buffer.concat([live.subarray(0, cut), Buffer.alloc(zeros)]);
}

function missing(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${file}'`), { code: 'ENOENT' });
}
