import fs from 'node:fs';
import path from 'node:path';
import { DomainError } from '../../domain/errors.js';
import { SERVER_FILE_NAMES } from '../../application/server/server-config.js';
import { flock } from '../flock.js';
import { storageError } from '../storage-error.js';

/**
 * `<stateHome>/.server.lock` (spec 8): an exclusive flock held for the whole life of the server.
 * One non-blocking attempt at startup (never a wait on the event loop); the kernel releases it
 * when the process dies, so a crashed server never leaves a stale lock.
 */
export function acquireServiceLock(stateHome: string): { release(): void } {
  const file = path.join(stateHome, SERVER_FILE_NAMES.lock);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  } catch (error) {
    throw storageError('Cannot open the service lock', error, { path: file });
  }
  try {
    flock().flockSync(fd, 'exnb');
  } catch (error) {
    fs.closeSync(fd);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
      throw new DomainError('SERVER_ALREADY_RUNNING', `Another taskdag server holds ${file}: one server per state home`, { path: file });
    }
    throw storageError('Cannot lock the service lock', error, { path: file });
  }
  return { release: () => fs.closeSync(fd) };
}
