import fs from 'graceful-fs';
import path from 'node:path';

/**
 * Replaces `file` with `contents` so that a crash at any instant leaves either the old or the new
 * file: write a temp file beside it, fsync it, rename it over, fsync the directory.
 */
export function writeFileAtomic(file: string, contents: string | Buffer, mode = 0o600): void {
  const temp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(temp, 'w', mode);
  try {
    try {
      fs.writeFileSync(fd, contents);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    // On a full disk the partial temp file holds space the next attempt needs.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(path.dirname(file));
}

/**
 * Creates `file` with `contents` only if it does not exist yet, durably and atomically (a hard
 * link of a complete temp file cannot be half made, and fails when the name is taken). Returns
 * false when another writer created it first.
 */
export function createFileExclusive(file: string, contents: string): boolean {
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, contents);
  const fd = fs.openSync(temp, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  fsyncDirectory(path.dirname(file));
  return true;
}

export function fsyncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes temp files a crashed writer left in `dir` (call under the lock that guards `dir`). */
export function removeLeftoverTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.includes('.tmp-')) fs.rmSync(path.join(dir, name), { force: true });
  }
}

export function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function readTextIfExists(file: string): string | null {
  return readIfExists(file)?.toString('utf8') ?? null;
}
