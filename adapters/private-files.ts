import { nodeFileSystem } from './file-system.js';
import fs from 'graceful-fs';
import { readIfExists, writeFileAtomic } from './durable-files.js';
import type { DomainError } from '../domain/errors.js';
import { invalidFile, storageError } from './storage-error.js';

/** Creates `dir` (and its parents) and makes it private to the user (0700), whatever umask says. */
export function ensurePrivateDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  } catch (error) {
    throw storageError('Cannot create a private directory', error, { path: dir });
  }
}

/**
 * A JSON object file, or null when absent; anything else there is STORAGE_ERROR naming the file
 * (`invalid` says how a file of that kind is reported, `name` what it is in a read failure).
 */
export function readJsonObject(
  file: string,
  invalid: (file: string, problem: string) => DomainError = invalidFile,
  name = 'a file',
): Record<string, unknown> | null {
  let bytes: Buffer | null;
  try {
    bytes = readIfExists(nodeFileSystem, file);
  } catch (error) {
    throw storageError(`Cannot read ${name}`, error, { path: file });
  }
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid(file, 'it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(file, 'it is not a JSON object');
  return value as Record<string, unknown>;
}

/** Replaces `file` atomically (temp, fsync, rename, fsync the directory) with mode 0600. */
export function writePrivateJson(file: string, value: unknown): void {
  try {
    writeFileAtomic(nodeFileSystem, file, JSON.stringify(value, null, 2) + '\n', 0o600);
    fs.chmodSync(file, 0o600);
  } catch (error) {
    throw storageError('Cannot write a file', error, { path: file });
  }
}
