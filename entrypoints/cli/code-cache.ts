import { isAscii } from 'node:buffer';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import type { Script } from 'node:vm';
import { checksumArea, laneChecksum, laneChecksumModule, type ChecksumArea } from '../../adapters/lane-checksum.js';
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
/** What the checksum takes in after the cache (padded to a whole step): the lengths and the bundle's stamp, padded to 64 bytes. */
const TRAILER_BYTES = 64;
/** Bytes the checksum takes in a step (adapters/lane-checksum.ts). */
const STEP = 32;
/** The room a cache is read into at first, more than any the build makes (WebAssembly pages cost nothing until written). */
const FIRST_ROOM = 1024 * 1024;
/**
 * The most of a cache file the loader reads: a few MiB above the largest cache the build writes
 * (about 0.6 MiB; scripts/build.mjs fails on one above this). A longer file is no cache of ours,
 * and one that never ends (a cache path linked to /dev/zero) hung the command as it read on.
 */
export const MOST_CACHE_BYTES = 4 * 1024 * 1024;
/**
 * Opened without waiting: a cache path that is a FIFO opens at once (for reading, open(2) waits
 * for a writer otherwise) and reads as empty or EAGAIN; a regular file reads as without the flag.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The lane checksum's WebAssembly module in base64, as the build assembled it for the executable
 * (scripts/build.mjs, `assembledModule`): assembled at each start-up, it cost about 3 M
 * instructions, more than the check itself. Anywhere else (the build's warm-up, the tests) it is
 * assembled here. A string, which esbuild folds `typeof` of: the executable then holds no code that
 * assembles it.
 */
declare const TASKDAG_LANE_CHECKSUM_MODULE: string | undefined;
const checksumModule =
  typeof TASKDAG_LANE_CHECKSUM_MODULE === 'string' ? () => Buffer.from(TASKDAG_LANE_CHECKSUM_MODULE, 'base64') as Uint8Array<ArrayBuffer> : laneChecksumModule;

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
 * lengths, a checksum of the cache, then both lengths and the bundle's stamp), then the cache.
 * Null where the checksum cannot be computed here (no WebAssembly), where the loader could not
 * check it either.
 */
export function sealCodeCache(cachedData: Uint8Array, bundle: Uint8Array): Buffer | null {
  const padding = new Uint8Array(Math.ceil(cachedData.length / STEP) * STEP - cachedData.length);
  const checksum = laneChecksum([cachedData, padding, trailerOf(cachedData.length, bundle)], checksumModule);
  return checksum === null ? null : Buffer.concat([Buffer.from(SEAL_MAGIC), lengthsOf(cachedData.length, bundle), checksum, cachedData]);
}

function lengthsOf(cacheLength: number, bundle: Uint8Array): Uint8Array {
  return new Uint8Array(new Uint32Array([cacheLength, bundle.length]).buffer);
}

/** What the checksum takes in after the cache: both lengths and the bundle's stamp (its last line), padded with zeros. */
function trailerOf(cacheLength: number, bundle: Uint8Array): Uint8Array {
  const trailer = new Uint8Array(TRAILER_BYTES);
  trailer.set(lengthsOf(cacheLength, bundle));
  trailer.set(bundle.subarray(Math.max(0, bundle.length - STAMP_BYTES)), 8);
  return trailer;
}

/**
 * The cache stored in `file` for `bundle` if its seal holds; undefined otherwise (none, damaged,
 * cut short, another bundle's). The file is read straight into the memory the checksum reads and
 * handed to V8 from there: a 240 KB buffer and a copy fewer. Typed arrays and plain loops only:
 * each Node Buffer helper a start-up calls first (concat, compare, from) is compiled from source
 * in that process.
 */
function sealedCache(file: string, bundle: Uint8Array): Uint8Array | undefined {
  const read = readIntoChecksumArea(file);
  if (read === undefined || read.length < SEAL_BYTES) return undefined;
  const { area, length } = read;
  const cacheLength = length - SEAL_BYTES;
  // The cache, the zeros to a whole step, the trailer: as sealCodeCache laid them out.
  const trailerAt = SEAL_BYTES + Math.ceil(cacheLength / STEP) * STEP;
  area.reserve(trailerAt + TRAILER_BYTES + STEP + 16);
  const { bytes } = area;
  bytes.set(trailerOf(cacheLength, bundle), trailerAt);
  const seal = [...SEAL_MAGIC, ...bytes.subarray(trailerAt, trailerAt + 8), ...area.checksum(SEAL_BYTES, trailerAt + TRAILER_BYTES)];
  for (let at = 0; at < SEAL_BYTES; at++) if (seal[at] !== bytes[at]) return undefined;
  return bytes.subarray(SEAL_BYTES, length);
}

/**
 * `file` read into a checksum area from its start, making room as it goes; undefined if it cannot
 * be read or checked, or if it holds more than MOST_CACHE_BYTES (one byte past them is read to
 * tell). The area is made once the file is open: a program without a cache costs nothing more.
 * The file's size is not asked first: the cap bounds the read without it, and Node's fstatSync
 * and Stats class cost about 1 M instructions of compiling on their first call in a process.
 */
function readIntoChecksumArea(file: string): { area: ChecksumArea; length: number } | undefined {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const area = checksumArea(FIRST_ROOM, checksumModule);
    if (area === null) return undefined;
    const most = MOST_CACHE_BYTES + 1;
    for (let length = 0; length < most; ) {
      area.reserve(Math.min(length + 64 * 1024, most));
      const read = readSync(fd, area.bytes, length, Math.min(area.bytes.length, most) - length, null);
      if (read === 0) return { area, length };
      length += read;
    }
    return undefined;
  } catch {
    // Not a readable file (a directory, a FIFO without data, an I/O error): no cache.
    return undefined;
  } finally {
    closeSync(fd);
  }
}
