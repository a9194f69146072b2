import fs from 'graceful-fs';
import path from 'node:path';
import { nodeFileSystem, type FileSystem } from './file-system.js';

/**
 * Replaces `file` with `contents` so that a crash at any instant leaves either the old or the new
 * file: write a temp file beside it, sync it, rename it over, sync the directory.
 */
export function writeFileAtomic(files: FileSystem, file: string, contents: string | Buffer | readonly Buffer[], mode = 0o600): void {
  const temp = `${file}.tmp-${process.pid}`;
  try {
    files.write(temp, contents, mode);
    files.sync(temp);
    files.rename(temp, file);
  } catch (error) {
    // On a full disk the partial temp file holds space the next attempt needs.
    files.remove(temp);
    throw error;
  }
  files.syncDirectory(path.dirname(file));
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
  nodeFileSystem.syncDirectory(path.dirname(file));
  return true;
}


/** Removes temp files a crashed writer left in `dir` (call under the lock that guards `dir`). */
export function removeLeftoverTempFiles(files: FileSystem, dir: string): void {
  for (const name of files.list(dir)) {
    if (name.includes('.tmp-')) files.remove(path.join(dir, name));
  }
}

export function readIfExists(files: FileSystem, file: string): Buffer | null {
  try {
    return files.read(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

