import { constants } from 'node:fs';
import { onFirstUse } from '../lazy-builtin.js';
import path from 'node:path';
import type { HostFiles, PathFacts } from '../../application/ports/host-files.js';
import { storageError } from '../storage-error.js';
import { syncDirectory, writeFileDurably } from './durable-write.js';

// Loaded on first use: every command line loads this module, few ever set a server up.
const fsp = onFirstUse(() => require('node:fs/promises') as typeof import('node:fs/promises'));

/** The host's file system for the server's setup; OS failures become STORAGE_ERROR naming the path. */
export class NodeHostFiles implements HostFiles {
  async read(file: string): Promise<string | null> {
    try {
      return await fsp().readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw storageError(`Cannot read ${file}`, error, { path: file });
    }
  }

  async facts(file: string): Promise<PathFacts | null> {
    try {
      const stats = await fsp().stat(file);
      return { kind: stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other', mode: stats.mode & 0o7777 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw storageError(`Cannot inspect ${file}`, error, { path: file });
    }
  }

  async writable(dir: string): Promise<boolean> {
    try {
      await fsp().access(dir, constants.W_OK | constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }

  async writeFile(file: string, text: string, mode: number): Promise<void> {
    try {
      await writeFileDurably(file, text, mode);
    } catch (error) {
      throw storageError(`Cannot write ${file}`, error, { path: file });
    }
  }

  async setMode(file: string, mode: number): Promise<void> {
    try {
      const handle = await fsp().open(file, constants.O_RDONLY);
      try {
        await handle.chmod(mode);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw storageError(`Cannot change the mode of ${file}`, error, { path: file });
    }
  }

  async makeDirectory(dir: string, mode: number): Promise<void> {
    try {
      const first = await fsp().mkdir(dir, { recursive: true, mode });
      if (first === undefined) return;
      await fsp().chmod(dir, mode); // exactly this mode, whatever the umask
      // Each new entry is durable once the directory that names it is synced.
      for (let created = dir; ; created = path.dirname(created)) {
        await syncDirectory(path.dirname(created));
        if (created === first) break;
      }
    } catch (error) {
      throw storageError(`Cannot create ${dir}`, error, { path: dir });
    }
  }
}
