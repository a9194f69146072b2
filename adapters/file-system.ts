import fs from 'graceful-fs';
import path from 'node:path';

/**
 * The file operations the store makes, and nothing more: what a write makes durable is explicit
 * (`sync`, `syncDirectory`), so a test file system can model a power loss (what was written but
 * not synced may be lost or torn). Failures are Node's errors, with their `code` (ENOENT, ENOSPC).
 */
/**
 * A file opened for reading: what it held when opened, even if it is replaced by a rename
 * meanwhile (an open descriptor keeps its inode). Close it when done.
 */
export interface OpenFile {
  readonly size: number;
  /** The bytes in [start, end), fewer if the file is shorter. */
  bytes(start: number, end: number): Buffer;
  close(): void;
}

export interface FileSystem {
  /** The whole file. */
  read(file: string): Buffer;
  open(file: string): OpenFile;
  /** The file's bytes from `start` on (fewer than asked, if it is shorter). */
  readFrom(file: string, start: number): Buffer;
  size(file: string): number;
  exists(file: string): boolean;
  list(dir: string): string[];
  /** Creates `dir` and missing parents, 0700, durably (each new entry's parent is synced). */
  makeDirectory(dir: string): void;
  /** Creates or replaces the file's content (mode for a new file; pieces: written in order); not durable before `sync`. */
  write(file: string, data: Buffer | string | readonly Buffer[], mode: number): void;
  /** Cuts the existing file at `position`, then writes `data` there; not durable before `sync`. */
  writeAt(file: string, data: Buffer, position: number): void;
  /** Makes the file's content durable. */
  sync(file: string): void;
  /** As `sync`, on libuv's thread pool: a long-lived process goes on serving while the disk syncs. */
  syncInBackground(file: string): Promise<void>;
  /**
   * Creates or replaces the file with `pieces` in order (mode for a new file) and makes it
   * durable, on libuv's thread pool: a long-lived process goes on serving while it writes.
   */
  writeInBackground(file: string, pieces: readonly Buffer[], mode: number): Promise<void>;
  /** Atomic; durable once the directory is synced. */
  rename(from: string, to: string): void;
  /** Removes the file if it exists; durable once the directory is synced. */
  remove(file: string): void;
  /** Makes the directory's entries (creations, renames, removals) durable. */
  syncDirectory(dir: string): void;
}

/** Bytes [start, end) of an open file; fewer when the file ends first. */
function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.allocUnsafe(Math.max(0, end - start));
  let read = 0;
  while (read < buffer.length) {
    const got = fs.readSync(fd, buffer, read, buffer.length - read, start + read);
    if (got === 0) break;
    read += got;
  }
  // Whole, as nearly every read is: a view of it would cost each read another Buffer made in Node's JavaScript.
  return read === buffer.length ? buffer : buffer.subarray(0, read);
}

/**
 * Writes `pieces` in order from the start of `fd`, a bounded number of buffers a call; what a short
 * write leaves is written one call at a time.
 */
function writePieces(fd: number, pieces: readonly Buffer[]): void {
  let position = 0;
  for (let at = 0; at < pieces.length; at += 1024) {
    const batch = pieces.slice(at, at + 1024);
    const length = batch.reduce((sum, piece) => sum + piece.length, 0);
    const written = fs.writevSync(fd, batch, position);
    const rest = written < length ? Buffer.concat(batch).subarray(written) : null;
    for (let done = 0; rest && done < rest.length; ) done += fs.writeSync(fd, rest, done, rest.length - done, position + written + done);
    position += length;
  }
}

/** The real file system (graceful-fs, synchronous calls: each is short and never waits on a lock). */
export const nodeFileSystem: FileSystem = {
  read: (file) => fs.readFileSync(file),
  open(file) {
    const fd = fs.openSync(file, 'r');
    let open = true;
    return {
      size: fs.fstatSync(fd).size,
      bytes(start, end) {
        // A closed descriptor's number may be another file's by now.
        if (!open) throw Object.assign(new Error(`${file} was read after it was closed`), { code: 'EBADF' });
        return readRange(fd, start, end);
      },
      close() {
        if (open) fs.closeSync(fd);
        open = false;
      },
    };
  },
  readFrom(file, start) {
    const fd = fs.openSync(file, 'r');
    try {
      return readRange(fd, start, fs.fstatSync(fd).size);
    } finally {
      fs.closeSync(fd);
    }
  },
  size: (file) => fs.statSync(file).size,
  exists: (file) => fs.existsSync(file),
  list: (dir) => fs.readdirSync(dir),
  makeDirectory(dir) {
    const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (first === undefined) return;
    for (let created = dir; ; created = path.dirname(created)) {
      nodeFileSystem.syncDirectory(path.dirname(created));
      if (created === first) break;
    }
  },
  write(file, data, mode) {
    if (!Array.isArray(data)) return fs.writeFileSync(file, data as Buffer | string, { mode });
    const fd = fs.openSync(file, 'w', mode);
    try {
      writePieces(fd, data);
    } finally {
      fs.closeSync(fd);
    }
  },
  writeAt(file, data, position) {
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, position);
      for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written, position + written);
    } finally {
      fs.closeSync(fd);
    }
  },
  sync(file) {
    const fd = fs.openSync(file, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  syncInBackground(file) {
    return new Promise((resolve, reject) => {
      const fd = fs.openSync(file, 'r');
      fs.fsync(fd, (error) => {
        fs.closeSync(fd);
        if (error) reject(error);
        else resolve();
      });
    });
  },
  async writeInBackground(file, pieces, mode) {
    const handle = await fs.promises.open(file, 'w', mode);
    try {
      let position = 0;
      // A bounded number of buffers a call; what a short write leaves is written one call at a time.
      for (let at = 0; at < pieces.length; at += 1024) {
        const batch = pieces.slice(at, at + 1024);
        const length = batch.reduce((sum, piece) => sum + piece.length, 0);
        const { bytesWritten } = await handle.writev(batch, position);
        const rest = bytesWritten < length ? Buffer.concat(batch).subarray(bytesWritten) : Buffer.alloc(0);
        for (let done = 0; done < rest.length; ) done += (await handle.write(rest, done, rest.length - done, position + bytesWritten + done)).bytesWritten;
        position += length;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fs.renameSync(from, to),
  remove: (file) => fs.rmSync(file, { force: true }),
  // A directory is synced through a read-only descriptor, like a file.
  syncDirectory: (dir) => nodeFileSystem.sync(dir),
};
