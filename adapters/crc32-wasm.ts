/**
 * CRC-32 (IEEE 802.3, as zlib computes it) in a WebAssembly module of about 830 bytes, assembled here
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
 * `$records` checks a run of ledger records in one call (ledger-records.ts): checked one by one in
 * JavaScript, the calls, the copies and the prefix compared a record were a large share of what a
 * point command paid to replay a tail (BENCHMARKS.md, "What a ledger tail costs a point
 * command", ninth pass).
 *
 * Memory: the tables at 0, 1024, 2048 and 3072 (256 words each, filled by the start function), the
 * bytes to check from 4096 (and after them, 4-byte aligned, the lengths `$records` finds).
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
 *   (func $records (export "records") (param $at i32) (param $end i32) (param $out i32) (result i32)
 *     (local $count i32) (local $index i32) (local $byte i32) (local $checksum i32) (local $body i32) (local $length i64)
 *     (block $done                             ;; the ledger records from $at on, up to the first that is not intact
 *       (loop $record                          ;; (ledger-records.ts): each one's length stored at $out, their count returned
 *         (br_if $done (i32.gt_u (i32.add (local.get $at) (i32.const 50)) (local.get $end)))
 *         (br_if $done (i32.ne (i32.load offset=0 (local.get $at)) (i32.const <bytes 0-3 of the prefix>)))
 *         ;; and so on, 4, 2 or 1 bytes a step: every byte of record-prefix.ts's prefix but its two numbers
 *         (local.set $checksum (i32.const 0)) (local.set $index (local.get $at))
 *         (loop $hex                           ;; 8 lowercase hex digits at 10: the CRC-32
 *           (local.set $byte (i32.load8_u offset=10 (local.get $index)))
 *           (if (i32.lt_u (i32.sub (local.get $byte) (i32.const 0x30)) (i32.const 10))
 *             (then (local.set $byte (i32.sub (local.get $byte) (i32.const 0x30))))
 *             (else (br_if $done (i32.ge_u (i32.sub (local.get $byte) (i32.const 0x61)) (i32.const 6)))
 *                   (local.set $byte (i32.sub (local.get $byte) (i32.const 0x57)))))
 *           (local.set $checksum (i32.or (i32.shl (local.get $checksum) (i32.const 4)) (local.get $byte)))
 *           (br_if $hex (i32.lt_u (local.tee $index (i32.add (local.get $index) (i32.const 1))) (i32.add (local.get $at) (i32.const 8)))))
 *         (local.set $length (i64.const 0)) (local.set $index (local.get $at))
 *         (loop $decimal                       ;; 10 decimal digits at 29: the change set's length
 *           (br_if $done (i32.ge_u (local.tee $byte (i32.sub (i32.load8_u offset=29 (local.get $index)) (i32.const 0x30))) (i32.const 10)))
 *           (local.set $length (i64.add (i64.mul (local.get $length) (i64.const 10)) (i64.extend_i32_u (local.get $byte))))
 *           (br_if $decimal (i32.lt_u (local.tee $index (i32.add (local.get $index) (i32.const 1))) (i32.add (local.get $at) (i32.const 10)))))
 *         (local.set $body (i32.add (local.get $at) (i32.const 50)))
 *         ;; the change set and the "}\n" after it are there, and its CRC-32 is the prefix's
 *         (br_if $done (i64.gt_u (i64.add (local.get $length) (i64.const 2)) (i64.extend_i32_u (i32.sub (local.get $end) (local.get $body)))))
 *         (br_if $done (i32.ne (i32.load16_u (i32.add (local.get $body) (i32.wrap_i64 (local.get $length)))) (i32.const 0x0a7d)))
 *         (br_if $done (i32.ne (call $crc32 (local.get $body) (i32.wrap_i64 (local.get $length)) (i32.const 0)) (local.get $checksum)))
 *         (i32.store (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))) (i32.wrap_i64 (local.get $length)))
 *         (local.set $count (i32.add (local.get $count) (i32.const 1)))
 *         (local.set $at (i32.add (i32.add (local.get $body) (i32.wrap_i64 (local.get $length))) (i32.const 2)))
 *         (br $record)))
 *     (local.get $count))
 *   (memory (export "memory") 1)
 */
import {
  aligned, BLOCK, body, BR, BR_IF, CALL, CODE_SECTION, constant, constant64, ELSE, END, EXPORT_SECTION, FUNCTION_SECTION, functionExport, functionType, get,
  I32, I32_ADD, I32_AND, I32_GE_U, I32_GT_U, I32_LOAD, I32_LOAD16_U, I32_LOAD8_U, I32_LT_U, I32_NE, I32_OR, I32_SHL, I32_SHR_U, I32_STORE, I32_SUB,
  I32_WRAP_I64, I32_XOR, I64, I64_ADD, I64_EXTEND_I32_U, I64_GT_U, I64_MUL, IF, LOOP, MEMORY_SECTION, memoryExport, reserveMemory, section, set, START_SECTION,
  tee, TYPE_SECTION, vector, VOID, WASM_HEADER,
} from './wasm-assembly.js';
import { CRC_AT, CRC_DIGITS, LENGTH_AT, LENGTH_DIGITS, RECORD_PREFIX, RECORD_SUFFIX } from './record-prefix.js';

/** Where the bytes to check start in the module's memory (the four tables take the first 4 KiB). */
const DATA = 4096;
/** Where tables 1 to 3 of the listing start in the module's memory (table 0 at 0). */
const [TABLE_1, TABLE_2, TABLE_3] = [1024, 2048, 3072];
/** The shortest record: its prefix, an empty change set and its suffix (a bound on how many lengths `records` stores). */
const SHORTEST_RECORD = RECORD_PREFIX.length + RECORD_SUFFIX.length;

/** The module of the listing above, its functions in the same order. */
export function crc32Module(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    ...WASM_HEADER,
    ...section(TYPE_SECTION, vector([functionType([], []), functionType([I32, I32, I32], [I32])])),
    ...section(FUNCTION_SECTION, vector([[0], [1], [1]])),
    // one memory: no maximum, at least 1 page
    ...section(MEMORY_SECTION, vector([[0x00, 1]])),
    ...section(EXPORT_SECTION, vector([functionExport('crc32', 1), functionExport('records', 2), memoryExport('memory', 0)])),
    ...section(START_SECTION, [0]),
    ...section(CODE_SECTION, vector([tableCode(), crc32Code(), recordsCode()])),
  ]);
}

function tableCode(): number[] {
  const [byte, crc, bit] = [0, 1, 2];
  return body([[3, I32]], [
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
}

function crc32Code(): number[] {
  const [at, length, running, end, words] = [0, 1, 2, 3, 4];
  /** Byte `shift / 8` of the running CRC, as the offset of its word in a table. */
  const byteOffset = (shift: number) => [...get(running), ...(shift > 0 ? [...constant(shift), I32_SHR_U] : []), ...(shift < 24 ? [...constant(0xff), I32_AND] : []), ...constant(2), I32_SHL];
  return body([[2, I32]], [
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
}

/** `$records` of the listing: function 2, calling `$crc32` (function 1) for each change set. */
function recordsCode(): number[] {
  const [at, end, out, count, index, byte, checksum, bodyStart, length] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const CRC32_FUNCTION = 1;
  /** A branch out of `$done` from `depth` blocks inside it. */
  const done = (depth: number) => [BR_IF, depth];
  const lengthAsI32 = [...get(length), I32_WRAP_I64];
  return body([[5, I32], [1, I64]], [
    BLOCK, VOID,
    LOOP, VOID,
    ...get(at), ...constant(RECORD_PREFIX.length), I32_ADD, ...get(end), I32_GT_U, ...done(1),
    ...prefixTextChecks(at).flatMap((check) => [...check, ...done(1)]),
    ...constant(0), ...set(checksum), ...get(at), ...set(index),
    LOOP, VOID,
    ...get(index), I32_LOAD8_U, ...aligned(0, CRC_AT), ...set(byte),
    ...get(byte), ...constant(0x30), I32_SUB, ...constant(10), I32_LT_U,
    IF, VOID,
    ...get(byte), ...constant(0x30), I32_SUB, ...set(byte),
    ELSE,
    ...get(byte), ...constant(0x61), I32_SUB, ...constant(6), I32_GE_U, ...done(3),
    ...get(byte), ...constant(0x57), I32_SUB, ...set(byte),
    END,
    ...get(checksum), ...constant(4), I32_SHL, ...get(byte), I32_OR, ...set(checksum),
    ...get(index), ...constant(1), I32_ADD, ...tee(index), ...get(at), ...constant(CRC_DIGITS), I32_ADD, I32_LT_U, BR_IF, 0,
    END,
    ...constant64(0), ...set(length), ...get(at), ...set(index),
    LOOP, VOID,
    ...get(index), I32_LOAD8_U, ...aligned(0, LENGTH_AT), ...constant(0x30), I32_SUB, ...tee(byte), ...constant(10), I32_GE_U, ...done(2),
    ...get(length), ...constant64(10), I64_MUL, ...get(byte), I64_EXTEND_I32_U, I64_ADD, ...set(length),
    ...get(index), ...constant(1), I32_ADD, ...tee(index), ...get(at), ...constant(LENGTH_DIGITS), I32_ADD, I32_LT_U, BR_IF, 0,
    END,
    ...get(at), ...constant(RECORD_PREFIX.length), I32_ADD, ...set(bodyStart),
    ...get(length), ...constant64(RECORD_SUFFIX.length), I64_ADD, ...get(end), ...get(bodyStart), I32_SUB, I64_EXTEND_I32_U, I64_GT_U, ...done(1),
    ...get(bodyStart), ...lengthAsI32, I32_ADD, I32_LOAD16_U, ...aligned(0), ...constant(RECORD_SUFFIX.charCodeAt(0) | (RECORD_SUFFIX.charCodeAt(1) << 8)), I32_NE, ...done(1),
    ...get(bodyStart), ...lengthAsI32, ...constant(0), CALL, CRC32_FUNCTION, ...get(checksum), I32_NE, ...done(1),
    ...get(out), ...get(count), ...constant(2), I32_SHL, I32_ADD, ...lengthAsI32, I32_STORE, ...aligned(2),
    ...get(count), ...constant(1), I32_ADD, ...set(count),
    ...get(bodyStart), ...lengthAsI32, I32_ADD, ...constant(RECORD_SUFFIX.length), I32_ADD, ...set(at),
    BR, 0,
    END,
    END,
    ...get(count),
  ]);
}

/**
 * The checks that the prefix at local `at` holds the template's bytes outside its two numbers: each
 * pushes whether 4, 2 or 1 of them differ, reading them little-endian as WebAssembly does.
 */
function prefixTextChecks(at: number): number[][] {
  const fixed: Array<[start: number, end: number]> = [
    [0, CRC_AT],
    [CRC_AT + CRC_DIGITS, LENGTH_AT],
    [LENGTH_AT + LENGTH_DIGITS, RECORD_PREFIX.length],
  ];
  const checks: number[][] = [];
  for (const [start, end] of fixed) {
    for (let offset = start; offset < end; ) {
      const width = end - offset >= 4 ? 4 : end - offset >= 2 ? 2 : 1;
      let value = 0;
      for (let byte = width - 1; byte >= 0; byte--) value = value * 256 + RECORD_PREFIX.charCodeAt(offset + byte);
      const load = width === 4 ? [I32_LOAD, ...aligned(0, offset)] : width === 2 ? [I32_LOAD16_U, ...aligned(0, offset)] : [I32_LOAD8_U, ...aligned(0, offset)];
      checks.push([...get(at), ...load, ...constant(value | 0), I32_NE]);
      offset += width;
    }
  }
  return checks;
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

interface ModuleExports {
  crc32(at: number, length: number, crc: number): number;
  records(at: number, end: number, out: number): number;
  memory: WebAssembly.Memory;
}

/** The module's checks, on bytes copied into its memory. */
export interface WasmChecks {
  /** The CRC-32 of `data` continuing `previous`. */
  crc32(data: Uint8Array, previous: number): number;
  /**
   * The lengths of the change sets of the intact ledger records from the start of `data`, each
   * record's prefix, length, closing `}\n` and CRC-32 checked (ledger-records.ts), up to the
   * first that is not intact.
   */
  recordLengths(data: Uint8Array): number[];
}

/** The module's checks; null where WebAssembly is not there (`node --jitless`), for the caller to check in plain code. */
export function wasmChecks(): WasmChecks | null {
  if (typeof WebAssembly !== 'object') return null;
  const exports = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes())).exports as unknown as ModuleExports;
  /** `data` copied to DATA, the memory grown first to hold it and `after` bytes beyond it. */
  const copyIn = (data: Uint8Array, after: number) => {
    reserveMemory(exports.memory, DATA + data.length + after);
    new Uint8Array(exports.memory.buffer, DATA, data.length).set(data);
  };
  return {
    crc32(data, previous) {
      copyIn(data, 0);
      return exports.crc32(DATA, data.length, previous) >>> 0;
    },
    recordLengths(data) {
      // The lengths go after the bytes, 4-byte aligned: at most one a shortest record, and one more.
      const out = DATA + data.length + ((4 - (data.length % 4)) % 4);
      copyIn(data, out - DATA - data.length + 4 * (Math.floor(data.length / SHORTEST_RECORD) + 1));
      const count = exports.records(DATA, DATA + data.length, out);
      return Array.from(new Uint32Array(exports.memory.buffer, out, count));
    },
  };
}
