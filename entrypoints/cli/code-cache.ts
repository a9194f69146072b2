import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Script } from 'node:vm';
import { splitGlobalFlags } from './globals.js';

export interface LoadedScript<T> {
  exports: T;
  /** The compiled script, so the build can serialize its code (`createCachedData()`). */
  script: Script;
}

/**
 * The code caches the build stores next to a script: for the whole program, `reads`, warmed by
 * the commands that only read a project's graph, and `all`, warmed by a round of every kind of
 * command; for the graph reads' program, one per command it serves (`show`, `status`, ...),
 * warmed by that command alone. V8 deserializes the whole of a cache at start-up, so a read does
 * not pay for the compiled code of every mutation, nor `show` for that of `status` (and the
 * other way round costs a mutation little: its reads are in `all`).
 */
export type CodeCache = 'all' | 'reads' | (string & {});

/** Where the build stores a script's V8 code cache of that kind: next to it (`all`: `<file>.cache`, else `<file>.<kind>.cache`). */
export function codeCacheFile(file: string, cache: CodeCache = 'all'): string {
  return cache === 'all' ? `${file}.cache` : `${file}.${cache}.cache`;
}

/**
 * The cache a command line starts from: `reads` when its command word (after the global flags)
 * is one of `readCommands`. Either cache fits the script; the other only compiles more lazily.
 */
export function codeCacheFor(argv: readonly string[], readCommands: ReadonlySet<string>): CodeCache {
  const word = splitGlobalFlags(argv).rest[0];
  return word !== undefined && readCommands.has(word) ? 'reads' : 'all';
}

/**
 * Loads a CommonJS bundle as `require` would, but compiled with the V8 code cache the build
 * stored next to it, so a start-up skips parsing and compiling the functions a command runs.
 * V8 checks the cache against its own version and flags and the source's length (not its
 * content), and ignores a damaged or mismatched one (the script then compiles as usual). The
 * build writes the bundle and its cache together and never warms up from an earlier cache
 * (scripts/code-cache.mjs): a cache from another bundle of the same length would run that code.
 */
export function loadWithCodeCache<T>(file: string, load: NodeJS.Require, cache: CodeCache = 'all'): LoadedScript<T> {
  const source = sourceOf(file);
  // Required here, not where this file is loaded: the executable answers --version and --help
  // without loading a program, and node:vm is not among the modules Node starts with.
  const { Script } = require('node:vm') as typeof import('node:vm');
  // Same shape as Node's own module wrapper, on the first line so line numbers stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: readCache(codeCacheFile(file, cache)),
  });
  const module = { exports: {} as T };
  script.runInThisContext()(module.exports, load, module, file, path.dirname(file));
  return { exports: module.exports, script };
}

/**
 * A bundle's text, read in one call. esbuild writes a bundle in ASCII (it escapes every other
 * character), which is taken byte for byte (latin1: V8 keeps such a string as it is) where a read
 * as UTF-8 takes 8 KB a call (24 calls for the point commands' program) and decodes; a file with
 * any other byte is decoded as UTF-8.
 */
function sourceOf(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
