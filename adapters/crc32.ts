import { wasmChecks } from './crc32-wasm.js';
import { onFirstUse } from './lazy-builtin.js';

/**
 * CRC-32 (IEEE 802.3, as zlib computes it), in a small WebAssembly module (crc32-wasm.ts), or in
 * plain code where WebAssembly is not there: `node:zlib` would load zlib and the stream machinery
 * (about 1.6 ms) on every command that reads a ledger record.
 */
let table: Uint32Array | null = null;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let value = byte;
    for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    table[byte] = value >>> 0;
  }
  return table;
}

/**
 * How many bytes a process checksums itself (the module's loop: about 3 ms a megabyte) before
 * node:zlib's crc32 (native; loading zlib costs about 1 ms) takes over: a point command never
 * gets there, while a command that checks megabytes (`search` checks every knowledge line it
 * reads against its saved checksum, a checkpoint rewrite) pays the load once and then runs about
 * ten times faster.
 */
const NATIVE_AFTER = 1024 * 1024;
/**
 * A buffer this long goes to zlib at once, whatever was checksummed before: the loop here runs
 * cold in a short process (a megabyte cost the plain loop 3.5-9 ms; the module's, which V8 starts
 * optimizing past some 100 KB in one call, about 2 ms at 128 KiB; zlib's load and crc32 together
 * 1-2 ms), and from about this length loading zlib costs less. A point command checks no section
 * this long; `search`, `context` and `take` check the knowledge section, a megabyte at 50k nodes
 * (issue 28).
 */
const NATIVE_AT_ONCE = 128 * 1024;
let checkedHere = 0;
/** zlib's crc32 (Node 20.15 and later; undefined before, where the plain loop goes on). */
const nativeCrc32 = onFirstUse(() => (require('node:zlib') as { crc32?: (data: Uint8Array, value?: number) => number }).crc32);
/** The module's, made on the first check (null without WebAssembly). */
const compiledChecks = onFirstUse(wasmChecks);

/** The CRC-32 of `data`; `previous`, the CRC-32 of the bytes before it, continues that one. */
export function crc32(data: Uint8Array, previous = 0): number {
  // No bytes continue the CRC-32 before them; zlib answers 0 for a view of an empty ArrayBuffer (no data pointer).
  if (data.length === 0) return previous >>> 0;
  if (checkedHere > NATIVE_AFTER || data.length >= NATIVE_AT_ONCE) {
    const native = nativeCrc32();
    if (native) return native(data, previous);
  }
  checkedHere += data.length;
  const compiled = compiledChecks();
  return compiled ? compiled.crc32(data, previous) : plainCrc32(data, previous);
}

/**
 * The lengths of the change sets of the intact ledger records from the start of `data` (each
 * checked as ledger-records.ts says, up to the first that is not intact), checked by the module in
 * one call; null where there is no WebAssembly, for the caller to check them one by one.
 */
export function intactRecordLengths(data: Uint8Array): number[] | null {
  // Past the megabyte a process checks itself, each record's CRC-32 goes to zlib, as crc32 does.
  const compiled = checkedHere + data.length > NATIVE_AFTER ? null : compiledChecks();
  if (!compiled) return null;
  checkedHere += data.length;
  return compiled.recordLengths(data);
}

/** The table-driven loop, a byte a step: where WebAssembly is not there. */
export function plainCrc32(data: Uint8Array, previous = 0): number {
  const lookup = crcTable();
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let index = 0; index < data.length; index++) crc = lookup[(crc ^ data[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The CRC-32 of `words`, each written as 4 bytes big-endian: the seed of a checkpoint's bucket or
 * row check (its number, the count, a length). Written into a typed array by hand: Buffer.alloc and
 * writeUInt32BE are Node's own JavaScript, which V8 compiled on their first call in each command
 * (about 0.5 M instructions for a `show` or a `context` that used them for nothing else).
 */
export function crc32OfWords(...words: number[]): number {
  const bytes = new Uint8Array(words.length * 4);
  for (let word = 0; word < words.length; word++) {
    const value = words[word]!;
    bytes[word * 4] = value >>> 24;
    bytes[word * 4 + 1] = value >>> 16;
    bytes[word * 4 + 2] = value >>> 8;
    bytes[word * 4 + 3] = value;
  }
  return crc32(bytes);
}

/** The CRC-32 of `text`'s UTF-8 bytes, without making a buffer of them when it is ASCII (as most ids and JSON are). */
export function crc32OfText(text: string): number {
  if (!/^[\x00-\x7f]*$/.test(text)) return crc32(Buffer.from(text));
  const lookup = crcTable();
  let crc = 0xffffffff;
  for (let index = 0; index < text.length; index++) crc = lookup[(crc ^ text.charCodeAt(index)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
