import { onFirstUse } from './lazy-builtin.js';

/**
 * CRC-32 (IEEE 802.3, as zlib computes it), in plain code: `node:zlib` would load zlib and the
 * stream machinery (about 1.6 ms) on every command that reads a ledger record. The table-driven
 * loop checks a 256 KiB ledger tail in well under a millisecond.
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
 * How many bytes a process checksums in plain code before node:zlib's crc32 (native; loading
 * zlib costs about 1.6 ms) takes over: a point command never gets there, while a command that
 * checks megabytes (`search` checks every knowledge line it reads against its saved checksum, a
 * checkpoint rewrite) pays the load once and then runs about ten times faster.
 */
const NATIVE_AFTER = 1024 * 1024;
/**
 * A buffer this long goes to zlib at once, whatever was checksummed before: the plain loop runs
 * cold in a short process (a megabyte cost it 3.5-9 ms, zlib's load and crc32 together 1-2 ms),
 * and from about this length loading zlib costs less. A point command checks no section this long;
 * `search`, `context` and `take` check the knowledge section, a megabyte at 50k nodes (issue 28).
 */
const NATIVE_AT_ONCE = 128 * 1024;
let checkedInPlainCode = 0;
/** zlib's crc32 (Node 20.15 and later; undefined before, where the plain loop goes on). */
const nativeCrc32 = onFirstUse(() => (require('node:zlib') as { crc32?: (data: Uint8Array, value?: number) => number }).crc32);

/** The CRC-32 of `data`; `previous`, the CRC-32 of the bytes before it, continues that one. */
export function crc32(data: Uint8Array, previous = 0): number {
  if (checkedInPlainCode > NATIVE_AFTER || data.length >= NATIVE_AT_ONCE) {
    const native = nativeCrc32();
    if (native) return native(data, previous);
  }
  checkedInPlainCode += data.length;
  const lookup = crcTable();
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let index = 0; index < data.length; index++) crc = lookup[(crc ^ data[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The CRC-32 of `text`'s UTF-8 bytes, without making a buffer of them when it is ASCII (as most ids and JSON are). */
export function crc32OfText(text: string): number {
  if (!/^[\x00-\x7f]*$/.test(text)) return crc32(Buffer.from(text));
  const lookup = crcTable();
  let crc = 0xffffffff;
  for (let index = 0; index < text.length; index++) crc = lookup[(crc ^ text.charCodeAt(index)) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
