import {
  aligned, BLOCK, body, BR_IF, CODE_SECTION, constant, END, EXPORT_SECTION, FUNCTION_SECTION, functionExport, functionType, get, I32, I32_ADD, I32_GE_U,
  I32_LT_U, I32X4_MUL, I32X4_SHR_U, IMPORT_SECTION, lanes, LOOP, memoryImport, PAGE, reserveMemory, section, set, simd, tee, TYPE_SECTION, V128, V128_LOAD,
  V128_STORE, V128_XOR, vector, VOID, WASM_HEADER,
} from './wasm-assembly.js';

/**
 * A 128-bit checksum of a few hundred kilobytes, for a file a process must check whole before it
 * trusts it (the CLI's V8 code caches: V8 deserializes a cache without checking its bytes, and a
 * damaged one crashes the process). Eight 32-bit lanes, 32 bytes a step, in WebAssembly SIMD: the
 * CRC-32 of crc32-wasm.ts goes a byte a step, some 0.7 ms for a 240 KB cache at start-up, where
 * this takes a fraction of that (BENCHMARKS.md). Each step is one-to-one in the lane's state and
 * in the word it takes in, so a change to any one word always changes the checksum; the length
 * is the caller's to check (the bytes are padded with zeros to a whole step).
 *
 *   (func $checksum (export "checksum") (param $at i32) (param $end i32) (param $out i32)
 *     (local $a v128) (local $b v128) (local $y v128)
 *     (block $done
 *       (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *       (loop $steps
 *         (local.set $a (mix (v128.xor (local.get $a) (v128.load (local.get $at)))))
 *         (local.set $b (mix (v128.xor (local.get $b) (v128.load offset=16 (local.get $at)))))
 *         (br_if $steps (i32.lt_u (local.tee $at (i32.add (local.get $at) (i32.const 32))) (local.get $end)))))
 *     (v128.store (local.get $out) (mix (v128.xor (local.get $a) (mix (local.get $b))))))
 *   ;; mix(x): y = x * ODD lane by lane (i32x4.mul); y ^ (y >>> 15) (i32x4.shr_u)
 *   (import "env" "memory" (memory 0))
 */

/** Bytes taken in a step. */
const STEP = 32;
const CHECKSUM_BYTES = 16;
/** Odd multipliers, one a lane (the 32-bit constants of xxHash): multiplying by an odd number is one-to-one. */
const ODD: [number, number, number, number] = [0x9e3779b1, 0x85ebca77, 0xc2b2ae3d, 0x27d4eb2f];

/** The module of the listing above. */
export function laneChecksumModule(): Uint8Array<ArrayBuffer> {
  const [at, end, out, a, b, y] = [0, 1, 2, 3, 4, 5];
  const mix = [...lanes(ODD), ...simd(I32X4_MUL), ...tee(y), ...get(y), ...constant(15), ...simd(I32X4_SHR_U), ...simd(V128_XOR)];
  const checksum = body([[3, V128]], [
    BLOCK, VOID,
    ...get(at), ...get(end), I32_GE_U, BR_IF, 0,
    LOOP, VOID,
    ...get(a), ...get(at), ...simd(V128_LOAD), ...aligned(4), ...simd(V128_XOR), ...mix, ...set(a),
    ...get(b), ...get(at), ...simd(V128_LOAD), ...aligned(4, 16), ...simd(V128_XOR), ...mix, ...set(b),
    ...get(at), ...constant(STEP), I32_ADD, ...tee(at), ...get(end), I32_LT_U, BR_IF, 0,
    END,
    END,
    ...get(out), ...get(a), ...get(b), ...mix, ...simd(V128_XOR), ...mix, ...simd(V128_STORE), ...aligned(4),
  ]);
  return new Uint8Array([
    ...WASM_HEADER,
    ...section(TYPE_SECTION, vector([functionType([I32, I32, I32], [])])),
    ...section(IMPORT_SECTION, vector([memoryImport(0)])),
    ...section(FUNCTION_SECTION, vector([[0]])),
    ...section(EXPORT_SECTION, vector([functionExport('checksum', 0)])),
    ...section(CODE_SECTION, vector([checksum])),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The module, compiled on first use; null where there is no WebAssembly (`node --jitless`) or no SIMD for it. */
function laneChecksumCode(assembled: () => Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled = typeof WebAssembly === 'object' ? new WebAssembly.Module(assembled()) : null;
  } catch (error) {
    if (!(error instanceof WebAssembly.CompileError)) throw error;
    compiled = null;
  }
  return compiled;
}

/** WebAssembly memory holding bytes to check, all zeros past what was written in it. */
export interface ChecksumArea {
  /** The memory's bytes (a new view once `reserve` has grown it). */
  readonly bytes: Uint8Array;
  /** Makes the memory at least `length` bytes long, keeping what it holds. */
  reserve(length: number): void;
  /**
   * The 16-byte checksum of the bytes from `start` to `end` (padded with the zeros after them to
   * a whole step), written just after the padding, so the memory must have 48 bytes to spare.
   */
  checksum(start: number, end: number): Uint8Array;
}

/**
 * An area of at least `capacity` bytes, null where the module cannot run (the caller then trusts
 * nothing). `assembled` gives the module's bytes (laneChecksumModule): the executable has them
 * from its build, where assembling them at every start-up cost more than the check itself. A
 * caller may read a file straight into `bytes`: the memory's pages cost nothing until written.
 */
export function checksumArea(capacity: number, assembled: () => Uint8Array<ArrayBuffer>): ChecksumArea | null {
  const code = laneChecksumCode(assembled);
  if (code === null) return null;
  const memory = new WebAssembly.Memory({ initial: Math.ceil(capacity / PAGE) });
  const exports = new WebAssembly.Instance(code, { env: { memory } }).exports as { checksum(at: number, end: number, out: number): void };
  let bytes = new Uint8Array(memory.buffer);
  return {
    get bytes() {
      return bytes;
    },
    reserve(length) {
      if (reserveMemory(memory, length)) bytes = new Uint8Array(memory.buffer);
    },
    checksum(start, end) {
      const padded = start + Math.ceil((end - start) / STEP) * STEP;
      exports.checksum(start, padded, padded);
      return bytes.slice(padded, padded + CHECKSUM_BYTES);
    },
  };
}

/** The 16-byte checksum of `parts` one after another, or null where the module cannot run (checksumArea). */
export function laneChecksum(parts: readonly Uint8Array[], assembled: () => Uint8Array<ArrayBuffer>): Uint8Array | null {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const area = checksumArea(length + STEP + CHECKSUM_BYTES, assembled);
  if (area === null) return null;
  let at = 0;
  for (const part of parts) {
    area.bytes.set(part, at);
    at += part.length;
  }
  return area.checksum(0, length);
}
