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

/** The CRC-32 of `data`; `previous`, the CRC-32 of the bytes before it, continues that one. */
export function crc32(data: Uint8Array, previous = 0): number {
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
