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
 * The tables of slicing-by-8 (eight bytes a step, as zlib's braided loop does): table `k`, at
 * `k * 256`, is the CRC-32 of a byte followed by `k` zero bytes. A command checks the sections it
 * reads (the knowledge heads are 0.7 MB at 50k nodes), and a byte a step cost it milliseconds.
 */
let slices: Uint32Array | null = null;

function sliceTables(): Uint32Array {
  if (slices) return slices;
  const first = crcTable();
  slices = new Uint32Array(8 * 256);
  slices.set(first);
  for (let at = 256; at < 8 * 256; at++) {
    const previous = slices[at - 256]!;
    slices[at] = (previous >>> 8) ^ first[previous & 0xff]!;
  }
  return slices;
}

/** The CRC-32 of `data`; `previous`, the CRC-32 of the bytes before it, continues that one. */
export function crc32(data: Uint8Array, previous = 0): number {
  const lookup = sliceTables();
  let crc = (previous ^ 0xffffffff) >>> 0;
  let index = 0;
  for (const whole = data.length - (data.length % 8); index < whole; index += 8) {
    const low = (crc ^ (data[index]! | (data[index + 1]! << 8) | (data[index + 2]! << 16) | (data[index + 3]! << 24))) >>> 0;
    crc =
      lookup[1792 + (low & 0xff)]! ^
      lookup[1536 + ((low >>> 8) & 0xff)]! ^
      lookup[1280 + ((low >>> 16) & 0xff)]! ^
      lookup[1024 + (low >>> 24)]! ^
      lookup[768 + data[index + 4]!]! ^
      lookup[512 + data[index + 5]!]! ^
      lookup[256 + data[index + 6]!]! ^
      lookup[data[index + 7]!]!;
  }
  for (; index < data.length; index++) crc = lookup[(crc ^ data[index]!) & 0xff]! ^ (crc >>> 8);
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
