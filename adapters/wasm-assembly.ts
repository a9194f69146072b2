/**
 * What the project's small WebAssembly modules (crc32-wasm.ts, lane-checksum.ts,
 * claim-alerts-wasm.ts) are assembled from: the binary format's sections, opcodes and encodings
 * they use (WebAssembly core specification and its fixed-width SIMD extension), so that each module
 * is written as the listing in its comment; and how the memory they run in is grown.
 */

/** The magic number and version every module starts with. */
export const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

// Plain constants, not destructured arrays: a bundle that uses none of them leaves them out.

// Sections, by id, in the order a module holds them.
export const TYPE_SECTION = 1;
export const IMPORT_SECTION = 2;
export const FUNCTION_SECTION = 3;
export const MEMORY_SECTION = 5;
export const EXPORT_SECTION = 7;
export const START_SECTION = 8;
export const CODE_SECTION = 10;

/** A memory's size is counted in pages of 64 KiB. */
export const PAGE = 64 * 1024;

// Types.
export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;
export const FUNC = 0x60;
export const VOID = 0x40;

// Control and locals.
export const BLOCK = 0x02;
export const LOOP = 0x03;
export const IF = 0x04;
export const ELSE = 0x05;
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const RETURN = 0x0f;
export const CALL = 0x10;
export const SELECT = 0x1b;
export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;
export const LOCAL_TEE = 0x22;

// 32-bit integers.
export const I32_LOAD = 0x28;
export const I64_LOAD = 0x29;
export const I32_LOAD8_U = 0x2d;
export const I32_LOAD16_U = 0x2f;
export const I32_STORE = 0x36;
export const I32_STORE8 = 0x3a;
export const I32_STORE16 = 0x3b;
export const I64_STORE = 0x37;
export const I32_CONST = 0x41;
export const I32_EQ = 0x46;
export const I32_NE = 0x47;
export const I32_LT_S = 0x48;
export const I32_LT_U = 0x49;
export const I32_GT_U = 0x4b;
export const I32_GE_S = 0x4e;
export const I32_GE_U = 0x4f;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_AND = 0x71;
export const I32_OR = 0x72;
export const I32_XOR = 0x73;
export const I32_SHL = 0x74;
export const I32_SHR_U = 0x76;
export const I32_WRAP_I64 = 0xa7;

// 64-bit integers (a ledger record's length: ten decimal digits; a claim's time in milliseconds; eight bytes at a time).
export const I64_CONST = 0x42;
export const I64_NE = 0x52;
export const I64_LT_S = 0x53;
export const I64_LT_U = 0x54;
export const I64_GT_U = 0x56;
export const I64_ADD = 0x7c;
export const I64_CTZ = 0x7a;
export const I64_SUB = 0x7d;
export const I64_MUL = 0x7e;
export const I64_DIV_U = 0x80;
export const I64_REM_U = 0x82;
export const I64_AND = 0x83;
export const I64_XOR = 0x85;
export const I64_EXTEND_I32_U = 0xad;

/** `memory.copy` within memory 0 (bulk memory: destination, source, length). */
export const MEMORY_COPY = [0xfc, 0x0a, 0x00, 0x00];

/** The prefix of every SIMD instruction; each opcode after it is an unsigned LEB128 (simd() below). */
const SIMD = 0xfd;
// SIMD opcodes.
export const V128_LOAD = 0x00;
export const V128_STORE = 0x0b;
export const V128_CONST = 0x0c;
export const V128_XOR = 0x51;
export const I32X4_SHR_U = 0xad;
export const I32X4_MUL = 0xb5;

/** Unsigned and signed LEB128, as the binary format writes sizes, indexes and constants. */
export function unsigned(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

export function signed(value: number | bigint): number[] {
  // In BigInt steps: a 64-bit constant (constant64) does not fit a number's 32-bit shifts.
  let rest = BigInt(value);
  const bytes: number[] = [];
  for (;;) {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    const last = (rest === 0n && (low & 0x40) === 0) || (rest === -1n && (low & 0x40) !== 0);
    bytes.push(last ? low : low | 0x80);
    if (last) return bytes;
  }
}

export const get = (local: number) => [LOCAL_GET, local];
export const set = (local: number) => [LOCAL_SET, local];
export const tee = (local: number) => [LOCAL_TEE, local];
export const constant = (value: number) => [I32_CONST, ...signed(value)];
/** An i64 constant, `value` taken as 64 bits: a mask such as 0x8080808080808080n is written as the negative number it is. */
export const constant64 = (value: number | bigint) => [I64_CONST, ...signed(BigInt.asIntN(64, BigInt(value)))];
/** A memory access's alignment (log2 of bytes) and offset. */
export const aligned = (log2: number, offset = 0) => [log2, ...unsigned(offset)];
/** A SIMD instruction. */
export const simd = (opcode: number) => [SIMD, ...unsigned(opcode)];
/** A v128 constant of four 32-bit lanes. */
export const lanes = (values: readonly [number, number, number, number]) => [
  ...simd(V128_CONST),
  ...values.flatMap((value) => [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff]),
];

export function section(id: number, content: number[]): number[] {
  return [id, ...unsigned(content.length), ...content];
}

export function vector(items: number[][]): number[] {
  return [...unsigned(items.length), ...items.flat()];
}

/** A function's body: its locals, as runs of [count, type], and its code. */
export function body(locals: ReadonlyArray<readonly [count: number, type: number]>, code: number[]): number[] {
  const content = [...vector(locals.map(([count, type]) => [...unsigned(count), type])), ...code, END];
  return [...unsigned(content.length), ...content];
}

export function name(text: string): number[] {
  return [...unsigned(text.length), ...Buffer.from(text, 'latin1')];
}

/** A function type of the type section: its parameters' value types, then its results'. */
export function functionType(parameters: readonly number[], results: readonly number[]): number[] {
  return [FUNC, ...unsigned(parameters.length), ...parameters, ...unsigned(results.length), ...results];
}

/** An entry of the import section: memory `env.memory`, of at least `pages` pages. */
export const memoryImport = (pages: number) => [...name('env'), ...name('memory'), 0x02, 0x00, ...unsigned(pages)];

/** Entries of the export section: function or memory `index` under the name `exported`. */
export const functionExport = (exported: string, index: number) => [...name(exported), 0x00, ...unsigned(index)];
export const memoryExport = (exported: string, index: number) => [...name(exported), 0x02, ...unsigned(index)];

/** Grows `memory` to hold at least `bytes` bytes; whether it grew (its buffer is then a new one). */
export function reserveMemory(memory: WebAssembly.Memory, bytes: number): boolean {
  const missing = bytes - memory.buffer.byteLength;
  if (missing <= 0) return false;
  memory.grow(Math.ceil(missing / PAGE));
  return true;
}
