/**
 * CRC-32 (IEEE 802.3, as zlib computes it) in a WebAssembly module of about 350 bytes, assembled here
 * from the listing below. A command checks every ledger record it replays (a tail of up to 256 KiB)
 * and every node line it reads: in plain JavaScript the byte loop runs in V8's interpreter at
 * about 26 ns a byte, and past some 10 KB V8 also compiles it with TurboFan on a background thread
 * (1.2-1.7 ms of CPU, every command, for a loop the process runs once). Compiled by Liftoff as the
 * module is made (tens of microseconds), the loop runs at machine speed from its first byte; a
 * process that checks more than a megabyte still moves on to node:zlib's (crc32.ts).
 *
 * Liftoff's code keeps each local in memory between steps, so the loop takes four bytes a step
 * (slicing by four: four tables, each byte of the word looked up in its own): byte by byte it cost
 * about 28 instructions a byte (BENCHMARKS.md), most of what `status` paid to check its sections.
 *
 * Memory: the tables at 0, 1024, 2048 and 3072 (256 words each, filled by the start function), the
 * bytes to check from 4096.
 *
 *   (func $table                               ;; start: table0[b] = CRC-32 of byte b, then for k = 1..3
 *     (local $byte i32) (local $crc i32) (local $bit i32)   ;; tableK[b] = (tableK-1[b] >>> 8) ^ table0[tableK-1[b] & 0xff]
 *     (loop $bytes
 *       (local.set $crc (local.get $byte)) (local.set $bit (i32.const 8))
 *       (loop $bits                            ;; crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
 *         (local.set $crc (i32.xor (i32.shr_u (local.get $crc) (i32.const 1))
 *                                  (i32.and (i32.const 0xedb88320) (i32.sub (i32.const 0) (i32.and (local.get $crc) (i32.const 1))))))
 *         (br_if $bits (local.tee $bit (i32.sub (local.get $bit) (i32.const 1)))))
 *       (i32.store (i32.shl (local.get $byte) (i32.const 2)) (local.get $crc))
 *       (br_if $bytes (i32.lt_u (local.tee $byte (i32.add (local.get $byte) (i32.const 1))) (i32.const 256))))
 *     (local.set $byte (i32.const 0))
 *     (loop $slices
 *       (local.set $crc (i32.load (i32.shl (local.get $byte) (i32.const 2))))
 *       (local.set $crc (i32.xor (i32.shr_u (local.get $crc) (i32.const 8)) (i32.load (i32.shl (i32.and (local.get $crc) (i32.const 0xff)) (i32.const 2)))))
 *       (i32.store offset=1024 (i32.shl (local.get $byte) (i32.const 2)) (local.get $crc))
 *       ;; the same two steps again, stored at offset=2048, and again, stored at offset=3072
 *       (br_if $slices (i32.lt_u (local.tee $byte (i32.add (local.get $byte) (i32.const 1))) (i32.const 256)))))
 *   (func $crc32 (export "crc32") (param $at i32) (param $length i32) (param $crc i32) (result i32)
 *     (local $end i32) (local $words i32)
 *     (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
 *     (local.set $end (i32.add (local.get $at) (local.get $length)))
 *     (local.set $words (i32.add (local.get $at) (i32.and (local.get $length) (i32.const -4))))
 *     (block $wordsDone
 *       (br_if $wordsDone (i32.ge_u (local.get $at) (local.get $words)))
 *       (loop $word                            ;; crc ^= word; crc = table3[byte 0] ^ table2[byte 1] ^ table1[byte 2] ^ table0[byte 3]
 *         (local.set $crc (i32.xor (local.get $crc) (i32.load (local.get $at))))
 *         (local.set $crc (i32.xor (i32.xor (i32.load offset=3072 (i32.shl (i32.and (local.get $crc) (i32.const 0xff)) (i32.const 2)))
 *                                           (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $crc) (i32.const 8)) (i32.const 0xff)) (i32.const 2))))
 *                                  (i32.xor (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $crc) (i32.const 16)) (i32.const 0xff)) (i32.const 2)))
 *                                           (i32.load (i32.shl (i32.shr_u (local.get $crc) (i32.const 24)) (i32.const 2))))))
 *         (br_if $word (i32.lt_u (local.tee $at (i32.add (local.get $at) (i32.const 4))) (local.get $words)))))
 *     (block $done                             ;; the last 0 to 3 bytes, one at a time
 *       (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *       (loop $bytes                           ;; crc = table0[(crc ^ byte) & 0xff] ^ (crc >>> 8)
 *         (local.set $crc (i32.xor (i32.load (i32.shl (i32.and (i32.xor (local.get $crc) (i32.load8_u (local.get $at))) (i32.const 0xff)) (i32.const 2)))
 *                                  (i32.shr_u (local.get $crc) (i32.const 8))))
 *         (br_if $bytes (i32.lt_u (local.tee $at (i32.add (local.get $at) (i32.const 1))) (local.get $end)))))
 *     (i32.xor (local.get $crc) (i32.const -1)))
 *   (memory (export "memory") 1)
 */
import {
  aligned, BLOCK, body, BR_IF, constant, END, FUNC, get, I32, I32_ADD, I32_AND, I32_GE_U, I32_LOAD, I32_LOAD8_U, I32_LT_U, I32_SHL, I32_SHR_U, I32_STORE,
  I32_SUB, I32_XOR, LOOP, name, section, set, tee, vector, VOID, WASM_HEADER,
} from './wasm-assembly.js';


/** Where the bytes to check start in the module's memory (the four tables take the first 4 KiB). */
const DATA = 4096;
/** Where tables 1 to 3 of the listing start in the module's memory (table 0 at 0). */
const [TABLE_1, TABLE_2, TABLE_3] = [1024, 2048, 3072];
const PAGE = 64 * 1024;

/** The module of the listing above, its functions in the same order. */
export function crc32Module(): Uint8Array<ArrayBuffer> {
  const [byte, crc, bit] = [0, 1, 2];
  const table = body([[3, I32]], [
    LOOP, VOID,
    ...get(byte), ...set(crc), ...constant(8), ...set(bit),
    LOOP, VOID,
    ...get(crc), ...constant(1), I32_SHR_U,
    ...constant(0xedb88320 | 0), ...constant(0), ...get(crc), ...constant(1), I32_AND, I32_SUB, I32_AND,
    I32_XOR, ...set(crc),
    ...get(bit), ...constant(1), I32_SUB, ...tee(bit), BR_IF, 0,
    END,
    ...get(byte), ...constant(2), I32_SHL, ...get(crc), I32_STORE, ...aligned(2),
    ...get(byte), ...constant(1), I32_ADD, ...tee(byte), ...constant(256), I32_LT_U, BR_IF, 0,
    END,
    ...constant(0), ...set(byte),
    LOOP, VOID,
    ...get(byte), ...constant(2), I32_SHL, I32_LOAD, ...aligned(2), ...set(crc),
    ...[TABLE_1, TABLE_2, TABLE_3].flatMap((offset) => [
      ...get(crc), ...constant(8), I32_SHR_U, ...get(crc), ...constant(0xff), I32_AND, ...constant(2), I32_SHL, I32_LOAD, ...aligned(2), I32_XOR, ...set(crc),
      ...get(byte), ...constant(2), I32_SHL, ...get(crc), I32_STORE, ...aligned(2, offset),
    ]),
    ...get(byte), ...constant(1), I32_ADD, ...tee(byte), ...constant(256), I32_LT_U, BR_IF, 0,
    END,
  ]);
  const [at, length, running, end, words] = [0, 1, 2, 3, 4];
  /** Byte `shift / 8` of the running CRC, as the offset of its word in a table. */
  const byteOffset = (shift: number) => [...get(running), ...(shift > 0 ? [...constant(shift), I32_SHR_U] : []), ...(shift < 24 ? [...constant(0xff), I32_AND] : []), ...constant(2), I32_SHL];
  const check = body([[2, I32]], [
    ...get(running), ...constant(-1), I32_XOR, ...set(running),
    ...get(at), ...get(length), I32_ADD, ...set(end),
    ...get(at), ...get(length), ...constant(-4), I32_AND, I32_ADD, ...set(words),
    BLOCK, VOID,
    ...get(at), ...get(words), I32_GE_U, BR_IF, 0,
    LOOP, VOID,
    ...get(running), ...get(at), I32_LOAD, ...aligned(0), I32_XOR, ...set(running),
    ...byteOffset(0), I32_LOAD, ...aligned(2, TABLE_3),
    ...byteOffset(8), I32_LOAD, ...aligned(2, TABLE_2),
    I32_XOR,
    ...byteOffset(16), I32_LOAD, ...aligned(2, TABLE_1),
    ...byteOffset(24), I32_LOAD, ...aligned(2),
    I32_XOR,
    I32_XOR, ...set(running),
    ...get(at), ...constant(4), I32_ADD, ...tee(at), ...get(words), I32_LT_U, BR_IF, 0,
    END,
    END,
    BLOCK, VOID,
    ...get(at), ...get(end), I32_GE_U, BR_IF, 0,
    LOOP, VOID,
    ...get(running), ...get(at), I32_LOAD8_U, ...aligned(0), I32_XOR, ...constant(0xff), I32_AND, ...constant(2), I32_SHL, I32_LOAD, ...aligned(2),
    ...get(running), ...constant(8), I32_SHR_U, I32_XOR, ...set(running),
    ...get(at), ...constant(1), I32_ADD, ...tee(at), ...get(end), I32_LT_U, BR_IF, 0,
    END,
    END,
    ...get(running), ...constant(-1), I32_XOR,
  ]);
  return new Uint8Array([
    ...WASM_HEADER,
    // types: 0 is () -> (), 1 is (i32, i32, i32) -> i32
    ...section(1, vector([[FUNC, 0, 0], [FUNC, 3, I32, I32, I32, 1, I32]])),
    ...section(3, vector([[0], [1]])),
    ...section(5, vector([[0x00, 1]])),
    ...section(7, vector([[...name('crc32'), 0x00, 1], [...name('memory'), 0x02, 0]])),
    ...section(8, [0]),
    ...section(10, vector([table, check])),
  ]);
}

/**
 * The module's bytes as the build assembled them for the command line's programs
 * (scripts/build.mjs); undefined elsewhere (the server, the library, the tests), where they are
 * assembled on first use. Assembled at each start-up, their hundreds of small arrays were some
 * 95 KB of the 1 MB a command allocates before its first collection: `context` and `take` crossed
 * it by less than that, and paid a collection of about 2 M instructions (BENCHMARKS.md).
 */
declare const TASKDAG_CRC32_MODULE: number[] | undefined;

function moduleBytes(): Uint8Array<ArrayBuffer> {
  return typeof TASKDAG_CRC32_MODULE === 'object' ? new Uint8Array(TASKDAG_CRC32_MODULE) : crc32Module();
}

interface Crc32Exports {
  crc32(at: number, length: number, crc: number): number;
  memory: WebAssembly.Memory;
}

/**
 * The CRC-32 of `data` continuing `previous`, computed by the module; null where WebAssembly is
 * not there (`node --jitless`), for the caller to compute it in plain code.
 */
export function wasmCrc32(): ((data: Uint8Array, previous: number) => number) | null {
  if (typeof WebAssembly !== 'object') return null;
  const exports = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes())).exports as unknown as Crc32Exports;
  return (data, previous) => {
    const { memory } = exports;
    const missing = DATA + data.length - memory.buffer.byteLength;
    if (missing > 0) memory.grow(Math.ceil(missing / PAGE));
    new Uint8Array(memory.buffer, DATA, data.length).set(data);
    return exports.crc32(DATA, data.length, previous) >>> 0;
  };
}
