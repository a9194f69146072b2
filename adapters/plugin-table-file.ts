import path from 'node:path';
import { pluginTableProblem, type PluginTable } from '../domain/plugins.js';
import { readIfExists, writeFileAtomic } from './durable-files.js';
import type { FileSystem } from './file-system.js';
import { invalidFile, storageError } from './storage-error.js';

const PLUGIN_FILE = /^plugins\.(\d+)\.json$/;

/**
 * A project's plugin table lives beside the ledger generation it belongs to:
 * `plugins.<generation>.json` with `ledger.<generation>.jsonl`. It is written once, before the
 * checkpoint that names that generation (the rename of the checkpoint commits both), and never
 * changed afterwards: a change of plugins is a new generation. No file means no plugins; only
 * a project that has some reads anything more.
 */
export function pluginFileOf(ledgerFile: string): string {
  return ledgerFile.replace(/^ledger\.(\d+)\.jsonl$/, 'plugins.$1.json');
}

export function isPluginFile(name: string): boolean {
  return PLUGIN_FILE.test(name);
}

/**
 * The table of the generation of `ledgerFile`. A missing file is an empty table only while that
 * generation's ledger is still there: once it is gone, a replacement displaced the state read,
 * and guessing "no plugins" would run operations unchecked.
 */
export function readPluginTable(files: FileSystem, location: string, ledgerFile: string): PluginTable {
  const file = path.join(location, pluginFileOf(ledgerFile));
  let bytes: Buffer | null;
  try {
    // Most projects have no plugins: looked for first, where a read of the missing file threw and caught an ENOENT on every mutation.
    bytes = files.exists(file) ? readIfExists(files, file) : null;
    if (bytes === null && !files.exists(path.join(location, ledgerFile))) {
      throw Object.assign(new Error(`${ledgerFile} was replaced while it was read`), { code: 'ENOENT' });
    }
  } catch (error) {
    throw storageError('Cannot read the plugin table', error, { path: file });
  }
  return bytes === null ? {} : decodePluginTable(bytes, file);
}

/** A stored plugin table's bytes, parsed and checked: STORAGE_ERROR (EINVALID) naming `where` when they are not one. */
export function decodePluginTable(bytes: Buffer, where: string): PluginTable {
  let table: unknown;
  try {
    table = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidFile(where, 'it is not JSON');
  }
  const problem = pluginTableProblem(table);
  if (problem) throw invalidFile(where, problem);
  return table as PluginTable;
}

/** A table that would not load is refused (STORAGE_ERROR, EINVALID) before anything is written. */
export function assertPluginTable(table: PluginTable, location: string): void {
  const problem = pluginTableProblem(table);
  if (problem) throw invalidFile(path.join(location, 'plugins.<generation>.json'), problem);
}

/** Writes the table of a new generation, durably, before its checkpoint; an empty table is no file. */
export function writePluginTable(files: FileSystem, location: string, ledgerFile: string, table: PluginTable): void {
  if (Object.keys(table).length === 0) return;
  writeFileAtomic(files, path.join(location, pluginFileOf(ledgerFile)), JSON.stringify(table) + '\n');
}
