import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Script } from 'node:vm';
import { laneChecksum, laneChecksumModule } from '../../adapters/lane-checksum.js';
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
 * V8 checks a cache's header against its own version and flags and the source's length, not the
 * bytes after it: a cache damaged in its middle crashed the process (exit 139). So the build seals
 * each cache with a checksum of its bytes and of the stamp of the bundle it was made from
 * (sealCodeCache, stampBundle), and a cache whose seal does not hold (damaged, cut short, made
 * from another build's bundle, not a cache at all) is
 * not handed to V8: the script then compiles as usual. The build never warms up from an earlier
 * cache (scripts/code-cache.mjs).
 */
export function loadWithCodeCache<T>(file: string, load: NodeJS.Require, cache: CodeCache = 'all'): LoadedScript<T> {
  const bytes = readFileSync(file);
  // Required here, not where this file is loaded: the executable answers --version and --help
  // without loading a program, and node:vm is not among the modules Node starts with.
  const { Script } = require('node:vm') as typeof import('node:vm');
  // Same shape as Node's own module wrapper, on the first line so line numbers stay right. Named
  // by its file name alone: V8 keeps the name a cache was made under (a copied install showed the
  // build machine's paths in its stack traces), so the name is the same wherever it runs.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${sourceOf(bytes)}\n})`, {
    filename: path.basename(file),
    cachedData: sealedCache(codeCacheFile(file, cache), bytes),
  });
  const module = { exports: {} as T };
  script.runInThisContext()(module.exports, load, module, file, path.dirname(file));
  return { exports: module.exports, script };
}

/**
 * A bundle's text. esbuild writes a bundle in ASCII (it escapes every other character), which is
 * taken byte for byte (latin1: V8 keeps such a string as it is) where a read as UTF-8 takes 8 KB a
 * call (24 calls for the point commands' program) and decodes; a file with any other byte is
 * decoded as UTF-8. The bundle is read in one call (loadWithCodeCache).
 */
function sourceOf(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** What a sealed cache starts with, before its lengths and checksum ("tdcache1"). */
const SEAL_MAGIC = [0x74, 0x64, 0x63, 0x61, 0x63, 0x68, 0x65, 0x31];
/** The seal's length: the magic, the cache's and the bundle's lengths, the checksum (a multiple of 8, so the cache stays aligned as V8 reads it). */
const SEAL_BYTES = 32;
/** The line the build ends each program with (stampBundle): the checksum of the rest of it. */
const STAMP_PREFIX = '//# taskdag-bundle=';
const STAMP_BYTES = STAMP_PREFIX.length + 32 + 1;

/**
 * The lane checksum's WebAssembly module as the build assembled it for the executable
 * (scripts/build.mjs): assembled at each start-up, it cost about 3 M instructions, more than
 * the check itself. Anywhere else (the build's warm-up, the tests) it is assembled here.
 */
declare const TASKDAG_LANE_CHECKSUM_MODULE: number[] | undefined;
const checksumModule = typeof TASKDAG_LANE_CHECKSUM_MODULE === 'object' ? () => new Uint8Array(TASKDAG_LANE_CHECKSUM_MODULE) : laneChecksumModule;

/**
 * A bundle with its stamp line appended: the checksum of its text, which a cache made from it is
 * sealed with. The loader checks the stamp (the bundle's last line), not the whole bundle, which
 * would cost as much again as checking the cache: a cache made from another build of a program
 * (even one of the same length, which V8 alone would take) does not pass.
 */
export function stampBundle(bundle: Buffer): Buffer {
  const checksum = laneChecksum([bundle], checksumModule);
  if (checksum === null) throw new Error('code cache: this Node cannot stamp a bundle (no WebAssembly SIMD)');
  return Buffer.concat([bundle, Buffer.from(`\n${STAMP_PREFIX}${Buffer.from(checksum).toString('hex')}\n`, 'latin1')]);
}

/**
 * A V8 code cache as the build stores it: its seal (the magic, the cache's and the bundle's
 * lengths, a checksum of both lengths, the bundle's stamp and the cache), then the cache. Null
 * where the checksum cannot be computed here (no WebAssembly), where the loader could not check it either.
 */
export function sealCodeCache(cachedData: Uint8Array, bundle: Uint8Array): Buffer | null {
  const seal = sealOf(cachedData, bundle);
  return seal === null ? null : Buffer.concat([seal, cachedData]);
}

/**
 * The seal of `cachedData` made from `bundle`. Typed arrays and plain loops only, here and in
 * sealedCache: each Node Buffer helper a start-up calls first (concat, compare, from) is compiled
 * from source in that process.
 */
function sealOf(cachedData: Uint8Array, bundle: Uint8Array): Uint8Array | null {
  const lengths = new Uint8Array(new Uint32Array([cachedData.length, bundle.length]).buffer);
  const checksum = laneChecksum([lengths, bundle.subarray(Math.max(0, bundle.length - STAMP_BYTES)), cachedData], checksumModule);
  if (checksum === null) return null;
  const seal = new Uint8Array(SEAL_BYTES);
  seal.set(SEAL_MAGIC);
  seal.set(lengths, SEAL_MAGIC.length);
  seal.set(checksum, SEAL_MAGIC.length + lengths.length);
  return seal;
}

/** The cache stored in `file` for `bundle` if its seal holds; undefined otherwise (none, damaged, cut short, another bundle's). */
function sealedCache(file: string, bundle: Uint8Array): Buffer | undefined {
  const stored = readCache(file);
  if (stored === undefined || stored.length < SEAL_BYTES) return undefined;
  const cachedData = stored.subarray(SEAL_BYTES);
  const seal = sealOf(cachedData, bundle);
  if (seal === null) return undefined;
  for (let at = 0; at < SEAL_BYTES; at++) if (seal[at] !== stored[at]) return undefined;
  return cachedData;
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
