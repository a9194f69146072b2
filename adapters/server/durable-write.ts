import { constants } from 'node:fs';
import { onFirstUse } from '../lazy-builtin.js';
import path from 'node:path';

// Loaded on first use: every command line loads this module, few ever set a server up.
const fsp = onFirstUse(() => require('node:fs/promises') as typeof import('node:fs/promises'));

/**
 * Asynchronous twin of adapters/durable-files.ts for code that runs on the server's event loop:
 * write a temp file beside the target with its final mode, fsync, rename over, fsync the
 * directory. A crash at any instant leaves the old file or the new one.
 */
export async function writeFileDurably(file: string, contents: string, mode: number): Promise<void> {
  const temp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  try {
    const handle = await fsp().open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      await handle.chmod(mode); // the umask may have narrowed or the caller widened it
      await handle.writeFile(contents);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp().rename(temp, file);
  } catch (error) {
    await fsp().rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(file));
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fsp().open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
