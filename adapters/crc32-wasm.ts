/**
 * CRC-32 (IEEE 802.3, as zlib computes it) in a WebAssembly module of about 200 bytes, assembled here
 * from the listing below. A command checks every ledger record it replays (a tail of up to 256 KiB)
 * and every node line it reads: in plain JavaScript the byte loop runs in V8's interpreter at
 * about 26 ns a byte, and past some 10 KB V8 also compiles it with TurboFan on a background thread
 * (1.2-1.7 ms of CPU, every command, for a loop the process runs once). Compiled by Liftoff as the
 * module is made (tens of microseconds), the loop runs at machine speed from its first byte; a
 * process that checks more than a megabyte still moves on to node:zlib's (crc32.ts).
 *
 * Memory: the table at 0 (256 words, filled by the start function), the bytes to check from 1024.
 *
 *   (func $table                               ;; start: table[b] = CRC-32 of byte b
 *     (local $byte i32) (local $crc i32) (local $bit i32)
 *     (loop $bytes
 *       (local.set $crc (local.get $byte)) (local.set $bit (i32.const 8))
 *       (loop $bits                            ;; crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
 *         (local.set $crc (i32.xor (i32.shr_u (local.get $crc) (i32.const 1))
 *                                  (i32.and (i32.const 0xedb88320) (i32.sub (i32.const 0) (i32.and (local.get $crc) (i32.const 1))))))
 *         (br_if $bits (local.tee $bit (i32.sub (local.get $bit) (i32.const 1)))))
 *       (i32.store (i32.shl (local.get $byte) (i32.const 2)) (local.get $crc))
 *       (br_if $bytes (i32.lt_u (local.tee $byte (i32.add (local.get $byte) (i32.const 1))) (i32.const 256)))))
 *   (func $crc32 (export "crc32") (param $at i32) (param $length i32) (param $crc i32) (result i32)
 *     (local $end i32)
 *     (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
 *     (local.set $end (i32.add (local.get $at) (local.get $length)))
 *     (block $done
 *       (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *       (loop $bytes                           ;; crc = table[(crc ^ byte) & 0xff] ^ (crc >>> 8)
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


/** Where the bytes to check start in the module's memory (the table takes the first 1 KiB). */
const DATA = 1024;
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
  ]);
  const [at, length, running, end] = [0, 1, 2, 3];
  const check = body([[1, I32]], [
    ...get(running), ...constant(-1), I32_XOR, ...set(running),
    ...get(at), ...get(length), I32_ADD, ...set(end),
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
