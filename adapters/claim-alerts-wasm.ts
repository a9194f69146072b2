/**
 * The stale-claim alerts of a checkpoint's `claims` section (heads-line.ts: `[id, by, at, ms]`
 * entries, the longest-held first), written by a small WebAssembly module straight from the
 * section's bytes: the same bytes as `JSON.stringify` of the alerts (domain/alerts.ts). `status`
 * prints every stale claim whatever `--limit` says, 1,261 alerts and 283 KB of its 309 KB answer
 * at 50k nodes; in JavaScript (the entries parsed, some 19,000 strings joined) that cost about 21 M
 * instructions, most of it per alert in V8's interpreter, a young-generation collection and
 * TurboFan compiling the loop (BENCHMARKS.md, eleventh pass). Liftoff compiles the module as it is
 * made, and the copies are `memory.copy`: no object made per claim, no collection.
 *
 *   (import "env" "memory" (memory 1))     ;; one memory, which every numbered copy of the module writes into
 *   (func $alerts (export "alerts") (param $at i32) (param $end i32) (param $out i32) (param $o i32)
 *       (param $cutoffLength i32) (param $holderLength i32) (param $now i64) (param $count i32) (result i32)
 *     ;; the section's bytes run to $end, zeros after them; the alerts so far from $out (the caller
 *     ;; wrote "[" before it) to $o. Takes $count entries from $at, then returns $o, the next entry's
 *     ;; position at STATE for the next copy to go on from; at the section's end or its first claim
 *     ;; past the cutoff, writes "]", 0 at STATE and returns the end; returns -1 where the section is
 *     ;; not entries this module writes alerts of (a claim time of null, entries of three strings or
 *     ;; whole heads as earlier releases wrote them, a backslash, a time in milliseconds past what a
 *     ;; date holds, an age past what JavaScript subtracts exactly): the caller writes them then.
 *     entries separated by ",", then "]", each:
 *       ["<id>","<by>","<at>",<ms>]        ;; each string up to the next quote, never a backslash
 *       stop (the rest are younger) when <at> > the cutoff, byte by byte as JavaScript compares them
 *       skip it when a holder is given ($holderLength >= 0) and <by> is not it
 *       $o = (call $write <$alerts' parameters and its locals up to <ms>>)
 *   (func $write (param ...) (result i32)  ;; one alert at $o; returns where it ends, or -1
 *     age = $now - <ms>, written in decimal (with "-" below zero) before SCRATCH, then copied:
 *     [","] open <id> by <by> at <at> age <age> message <id> held <by> for <age> close
 *       ;; the pieces of STALE_CLAIM_TEXT as i64 stores of their bytes, the strings and age by memory.copy
 *
 * Memory: DIGIT_PAIRS at 0 ("00" to "99", written by `claimAlertsRenderer`), STATE, SCRATCH (an age's
 * digits go below it), the cutoff at CUTOFF, the holder at HOLDER, the section at SECTION, then eight
 * zeros, then the alerts.
 */
import { STALE_CLAIM_TEXT } from '../domain/alerts.js';
import { isPlainJsonString } from '../domain/json-text.js';
import {
  aligned, BLOCK, body, BR, BR_IF, CALL, CODE_SECTION, constant, constant64, ELSE, END, EXPORT_SECTION, FUNCTION_SECTION, functionExport, functionType, get,
  I32, I32_ADD, I32_EQ, I32_GE_S, I32_GE_U, I32_GT_U, I32_LOAD16_U, I32_LOAD8_U, I32_LT_S, I32_LT_U, I32_MUL, I32_NE, I32_SHL, I32_SHR_U, I32_STORE,
  I32_STORE16, I32_STORE8, I32_SUB, I32_WRAP_I64, I64, I64_ADD, I64_AND, I64_CTZ, I64_DIV_U, I64_EXTEND_I32_U, I64_GT_U, I64_LOAD, I64_LT_S, I64_LT_U, I64_MUL,
  I64_NE, I64_REM_U, I64_STORE, I64_SUB, I64_XOR, IF, IMPORT_SECTION, LOOP, MEMORY_COPY, memoryImport, reserveMemory, RETURN, section, SELECT, set, tee,
  TYPE_SECTION, vector, VOID, WASM_HEADER,
} from './wasm-assembly.js';

type Piece = keyof typeof STALE_CLAIM_TEXT;
/** "00" to "99", where an age's digits are read two at a time. */
const DIGIT_PAIRS = 0;
/** Where a call that did its `count` entries leaves the position of the next (0: the alerts are written). */
const STATE = 288;
/** The digits of an age are written backwards from here (at most 16 digits and a sign). */
const SCRATCH = 320;
/** The cutoff's bytes, then zeros: from SCRATCH up, where an age's digits go down from. */
const CUTOFF = SCRATCH;
const CUTOFF_LIMIT = 64;
const HOLDER = CUTOFF + CUTOFF_LIMIT;
const HOLDER_LIMIT = 128;
const SECTION = HOLDER + HOLDER_LIMIT;
/** A claim time in milliseconds a date can hold (ECMAScript: ±8.64e15), and the largest age JavaScript subtracts exactly. */
const MILLIS_LIMIT = 8.64e15;
const EXACT_LIMIT = Number.MAX_SAFE_INTEGER;

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;

/** The module of the listing above. */
export function claimAlertsModule(): Uint8Array<ArrayBuffer> {
  const functions = alertsAndWrite();
  return new Uint8Array([
    ...WASM_HEADER,
    ...section(TYPE_SECTION, vector(functions.map(({ parameters }) => functionType(parameters, [I32])))),
    // the memory, imported: every instance writes into the same one
    ...section(IMPORT_SECTION, vector([memoryImport(1)])),
    ...section(FUNCTION_SECTION, vector([[0], [1]])),
    ...section(EXPORT_SECTION, vector([functionExport('alerts', 0)])),
    ...section(CODE_SECTION, vector(functions.map(({ body: code }) => code))),
  ]);
}

/**
 * $alerts and $write (functions 0 and 1, of types 0 and 1), which share the names of their locals:
 * $write's parameters are $alerts' parameters and its locals up to $millis. Made here, not at the
 * file's top level, which every command that loads the program runs.
 */
function alertsAndWrite(): Array<{ parameters: number[]; body: number[] }> {
  const [at, end, out, o, cutoffLength, holderLength, now, count] = [0, 1, 2, 3, 4, 5, 6, 7];
  const alertsParameters = [I32, I32, I32, I32, I32, I32, I64, I32];
  const [id, idEnd, by, byEnd, time, timeEnd, k, c, negative, digits, p, i, least] = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];
  const [millis, age, word] = [21, 22, 23];
  const writeParameters = [...alertsParameters, ...new Array<number>(13).fill(I32), I64];
  /** Fails (returns -1) unless the condition on the stack is zero: $write's one failure. */
  const failIf = [IF, VOID, ...constant(-1), RETURN, END];
  /**
   * $alerts' failures branch out to its $fail block, which returns -1: a return inline at each
   * would put its code (and V8's tier-up check) into the loop, whose length is what each turn
   * takes of the budget (ENTRIES_A_MODULE). `depth`: the blocks and loops within $entry.
   */
  const failOut = (depth = 0) => [BR_IF, depth + 2];
  /** The byte offset of the lowest nonzero byte of local `word` (nonzero). */
  const lowestByte = [...get(word), I64_CTZ, I32_WRAP_I64, ...constant(3), I32_SHR_U];
  const byteAt = (local: number, offset = 0) => [...get(local), I32_LOAD8_U, ...aligned(0, offset)];
  const store = (byte: number) => [...get(o), ...constant(byte), I32_STORE8, ...aligned(0), ...get(o), ...constant(1), I32_ADD, ...set(o)];
  /** memory.copy of `length` bytes from `from` to o, o moved past them. */
  const copy = (from: number[], length: number[]) => [...get(o), ...from, ...length, ...MEMORY_COPY, ...get(o), ...length, I32_ADD, ...set(o)];
  /**
   * A piece of the fixed text as i64 stores of its bytes, eight at a time (the last one's bytes past
   * the piece are written over next): a `memory.copy` is a call out of Liftoff's code, and the code
   * each one takes is the function's, which each call takes of the budget (ENTRIES_A_MODULE).
   */
  const piece = (which: Piece) => {
    const bytes = Buffer.from(STALE_CLAIM_TEXT[which], 'latin1');
    const stores: number[] = [];
    for (let at = 0; at < bytes.length; at += 8) {
      let word = 0n;
      for (let byte = Math.min(bytes.length, at + 8) - 1; byte >= at; byte--) word = (word << 8n) | BigInt(bytes[byte]!);
      stores.push(...get(o), ...constant64(word), I64_STORE, ...aligned(0, at));
    }
    return [...stores, ...get(o), ...constant(bytes.length), I32_ADD, ...set(o)];
  };
  const span = (start: number, stop: number) => copy(get(start), [...get(stop), ...get(start), I32_SUB]);
  /**
   * The string from local `start` up to its closing quote (its position into `stop`), eight bytes a
   * step: the lowest byte of a word that is a quote is the lowest set high bit of
   * `(x - 0x01..) & ~x & 0x80..`, x the word xor quotes. Past the section's end fails (the eight
   * zeros after it are never a quote; the caller found no backslash in the section).
   */
  const string = (start: number, stop: number) => [
    ...get(start), ...set(k),
    BLOCK, VOID,
    LOOP, VOID,
    ...get(k), I64_LOAD, ...aligned(0), ...constant64(0x2222222222222222n), I64_XOR, ...tee(word),
    ...constant64(0x0101010101010101n), I64_SUB, ...get(word), ...constant64(-1), I64_XOR, I64_AND, ...constant64(0x8080808080808080n), I64_AND, ...tee(word),
    ...constant64(0), I64_NE, BR_IF, 1,
    ...get(k), ...constant(8), I32_ADD, ...tee(k), ...get(end), I32_GE_U, ...failOut(2),
    BR, 0,
    END,
    END,
    ...get(k), ...lowestByte, I32_ADD, ...tee(stop), ...get(end), I32_GE_U, ...failOut(),
  ];
  /** Fails unless `","` follows the closing quote at local `stop` (the next string starts 3 bytes on). */
  const between = (stop: number) => [...get(stop), I32_LOAD16_U, ...aligned(0, 1), ...constant(COMMA | (QUOTE << 8)), I32_NE, ...failOut()];
  const write = body([[2, I64]], [
    // The age, exact in JavaScript's numbers, written backwards before SCRATCH: digits, then the sign.
    ...get(now), ...get(negative), IF, I64, ...constant64(0), ...get(millis), I64_SUB, ELSE, ...get(millis), END, I64_SUB, ...set(age),
    ...get(age), ...constant64(0), I64_LT_S, ...tee(negative),
    IF, VOID, ...constant64(0), ...get(age), I64_SUB, ...set(age), END,
    ...get(age), ...constant64(EXACT_LIMIT), I64_GT_U, ...failIf,
    // Two digits a turn from DIGIT_PAIRS down to the last one or two.
    ...constant(SCRATCH), ...set(p),
    BLOCK, VOID,
    LOOP, VOID,
    ...get(age), ...constant64(100), I64_LT_U, BR_IF, 1,
    ...get(p), ...constant(2), I32_SUB, ...tee(p),
    ...get(age), ...constant64(100), I64_REM_U, I32_WRAP_I64, ...constant(1), I32_SHL, I32_LOAD16_U, ...aligned(0, DIGIT_PAIRS), I32_STORE16, ...aligned(0),
    ...get(age), ...constant64(100), I64_DIV_U, ...set(age),
    BR, 0,
    END,
    END,
    ...get(age), ...constant64(10), I64_LT_U,
    IF, VOID,
    ...get(p), ...constant(1), I32_SUB, ...tee(p), ...get(age), I32_WRAP_I64, ...constant(ZERO), I32_ADD, I32_STORE8, ...aligned(0),
    ELSE,
    ...get(p), ...constant(2), I32_SUB, ...tee(p), ...get(age), I32_WRAP_I64, ...constant(1), I32_SHL, I32_LOAD16_U, ...aligned(0, DIGIT_PAIRS), I32_STORE16, ...aligned(0),
    END,
    ...get(negative),
    IF, VOID, ...get(p), ...constant(1), I32_SUB, ...tee(p), ...constant(MINUS), I32_STORE8, ...aligned(0), END,
    ...get(o), ...get(out), I32_NE,
    IF, VOID, ...store(COMMA), END,
    ...piece('open'), ...span(id, idEnd),
    ...piece('by'), ...span(by, byEnd),
    ...piece('at'), ...span(time, timeEnd),
    ...piece('age'), ...copy(get(p), [...constant(SCRATCH), ...get(p), I32_SUB]),
    ...piece('message'), ...span(id, idEnd),
    ...piece('held'), ...span(by, byEnd),
    ...piece('for'), ...copy(get(p), [...constant(SCRATCH), ...get(p), I32_SUB]),
    ...piece('close'),
    ...get(o),
  ]);
  const alerts = body([[13, I32], [3, I64]], [
    BLOCK, VOID, // $fail
    BLOCK, VOID, // $stop: a claim past the cutoff, or the section's end
    LOOP, VOID, // $entry
    // $count entries done: where the next one starts, at STATE, for the caller to go on from.
    ...get(count), ...constant(0), I32_EQ,
    IF, VOID, ...constant(STATE), ...get(at), I32_STORE, ...aligned(2), ...get(o), RETURN, END,
    ...get(count), ...constant(1), I32_SUB, ...set(count),
    ...get(at), I32_LOAD16_U, ...aligned(0), ...constant(OPEN_BRACKET | (QUOTE << 8)), I32_NE, ...failOut(),
    ...get(at), ...constant(2), I32_ADD, ...set(id),
    ...string(id, idEnd), ...between(idEnd),
    ...get(idEnd), ...constant(3), I32_ADD, ...set(by),
    ...string(by, byEnd), ...between(byEnd),
    ...get(byEnd), ...constant(3), I32_ADD, ...set(time),
    ...string(time, timeEnd),
    ...byteAt(timeEnd, 1), ...constant(COMMA), I32_NE, ...failOut(),
    // The time in milliseconds: an optional minus, 1 to 16 digits, then "]".
    ...get(timeEnd), ...constant(2), I32_ADD, ...set(k),
    ...byteAt(k), ...constant(MINUS), I32_EQ, ...tee(negative),
    ...get(k), I32_ADD, ...set(k),
    ...constant64(0), ...set(millis), ...constant(0), ...set(digits),
    // Two digits a turn (a turn is what the loop's length takes of the budget), the last one alone.
    BLOCK, VOID,
    LOOP, VOID,
    ...byteAt(k), ...constant(ZERO), I32_SUB, ...tee(c), ...constant(10), I32_GE_U, BR_IF, 1,
    ...byteAt(k, 1), ...constant(ZERO), I32_SUB, ...tee(i), ...constant(10), I32_GE_U,
    IF, VOID,
    ...get(millis), ...constant64(10), I64_MUL, ...get(c), I64_EXTEND_I32_U, I64_ADD, ...set(millis),
    ...get(k), ...constant(1), I32_ADD, ...set(k),
    ...get(digits), ...constant(1), I32_ADD, ...set(digits),
    BR, 2,
    END,
    ...get(millis), ...constant64(100), I64_MUL, ...get(c), ...constant(10), I32_MUL, ...get(i), I32_ADD, I64_EXTEND_I32_U, I64_ADD, ...set(millis),
    ...get(k), ...constant(2), I32_ADD, ...set(k),
    ...get(digits), ...constant(2), I32_ADD, ...tee(digits), ...constant(16), I32_GT_U, ...failOut(2),
    BR, 0,
    END,
    END,
    ...get(digits), ...constant(16), I32_GT_U, ...failOut(),
    ...get(digits), ...constant(0), I32_EQ, ...failOut(),
    ...byteAt(k), ...constant(CLOSE_BRACKET), I32_NE, ...failOut(),
    ...get(millis), ...constant64(MILLIS_LIMIT), I64_GT_U, ...failOut(),
    // Past the cutoff (compared as JavaScript compares the strings: the first byte that differs, else
    // the longer is greater), none after it is stale. Eight bytes a step to the first difference
    // (the cutoff has zeros after it, the time the rest of its entry).
    ...get(timeEnd), ...get(time), I32_SUB, ...get(cutoffLength), ...get(timeEnd), ...get(time), I32_SUB, ...get(cutoffLength), I32_LT_U, SELECT, ...set(least),
    ...constant(0), ...set(i),
    BLOCK, VOID,
    LOOP, VOID,
    ...get(time), ...get(i), I32_ADD, I64_LOAD, ...aligned(0), ...get(i), I64_LOAD, ...aligned(0, CUTOFF), I64_XOR, ...tee(word),
    ...constant64(0), I64_NE,
    IF, VOID, ...get(i), ...lowestByte, I32_ADD, ...set(i), BR, 2, END,
    ...get(i), ...constant(8), I32_ADD, ...tee(i), ...get(least), I32_LT_U, BR_IF, 0,
    END,
    END,
    ...get(i), ...get(least), I32_LT_U,
    IF, I32,
    ...get(time), ...get(i), I32_ADD, I32_LOAD8_U, ...aligned(0), ...get(i), I32_LOAD8_U, ...aligned(0, CUTOFF), I32_GT_U,
    ELSE,
    ...get(timeEnd), ...get(time), I32_SUB, ...get(cutoffLength), I32_GT_U,
    END,
    BR_IF, 1,
    BLOCK, VOID, // $skip: another holder's claim
    ...get(holderLength), ...constant(0), I32_GE_S,
    IF, VOID,
    ...get(byEnd), ...get(by), I32_SUB, ...get(holderLength), I32_NE, BR_IF, 1,
    ...constant(0), ...set(i),
    BLOCK, VOID,
    LOOP, VOID,
    ...get(i), ...get(holderLength), I32_EQ, BR_IF, 1,
    ...get(by), ...get(i), I32_ADD, I32_LOAD8_U, ...aligned(0), ...get(i), I32_LOAD8_U, ...aligned(0, HOLDER), I32_NE, BR_IF, 3,
    ...get(i), ...constant(1), I32_ADD, ...set(i),
    BR, 0,
    END,
    END,
    END,
    // The alert, written by $write (function 1), which takes these locals as its parameters.
    ...writeParameters.flatMap((_, local) => get(local)), CALL, 1, ...tee(o), ...constant(0), I32_LT_S, ...failOut(),
    END, // $skip
    // The next entry after ",", or the section's end after "]".
    ...get(k), ...constant(1), I32_ADD, ...tee(at), I32_LOAD8_U, ...aligned(0), ...constant(COMMA), I32_EQ,
    IF, VOID, ...get(at), ...constant(1), I32_ADD, ...set(at), BR, 1, END,
    ...byteAt(at), ...constant(CLOSE_BRACKET), I32_NE, ...failOut(),
    ...get(at), ...constant(1), I32_ADD, ...get(end), I32_NE, ...failOut(),
    END, // $entry
    END, // $stop
    ...constant(STATE), ...constant(0), I32_STORE, ...aligned(2),
    ...store(CLOSE_BRACKET),
    ...get(o), RETURN,
    END, // $fail
    ...constant(-1),
  ]);
  return [{ parameters: alertsParameters, body: alerts }, { parameters: writeParameters, body: write }];
}

/**
 * The module's bytes in base64, as the build assembled them for the command line's programs
 * (scripts/build.mjs); undefined elsewhere, where they are assembled on first use. A string, not
 * a list of numbers: esbuild hoists a list to the bundle's top level, where every command made its
 * 1,700 elements at start-up, `status` or not; a string literal costs nothing until it is decoded,
 * and esbuild folds `typeof` of it, so the programs keep no code that assembles the module.
 */
declare const TASKDAG_CLAIM_ALERTS_MODULE: string | undefined;

interface ModuleExports {
  alerts(at: number, end: number, out: number, o: number, cutoffLength: number, holderLength: number, now: bigint, count: number): number;
}

/**
 * The entries one module writes alerts of. V8 compiles a WebAssembly function again with TurboFan,
 * on a background thread, once the code Liftoff made of it has run long enough: a budget kept for
 * each function of a compiled module (1.8 M bytes of machine code run, each loop's length at each
 * turn and each function's at its return, in Node 20; a module of the same bytes is the same
 * compiled module). Writing the 1,261 alerts of a 50k-node project in one module ran about five
 * times that, and TurboFan's compile cost some 10 M instructions, more than writing them. So the
 * work of an entry is split between two functions (about 3.5 K and 3 K of the budget an entry,
 * measured with `--wasm-tiering-budget`), and each run of entries goes to a module of its own (the
 * same code, a custom section numbering it: Liftoff compiles it again, some 0.3 M instructions a
 * function), all writing into one memory: 440 entries a module stay within the budget by some 15%,
 * and Liftoff's code runs to the end (BENCHMARKS.md, eleventh pass).
 */
const ENTRIES_A_MODULE = 440;

/**
 * The stale-claim alerts of a `claims` section's bytes as JSON text (UTF-8), taken at or before
 * `cutoff` (by `holder`, when given), `now` being `nowMillis`: the bytes `staleClaimAlertsJson`
 * writes of the same entries. Null where the module does not write them (see the listing, and a
 * cutoff, holder or time it does not take): the caller parses the section and writes them itself.
 */
export type ClaimAlertsRenderer = (section: Uint8Array, cutoff: string, nowMillis: number, holder: string | undefined) => Uint8Array | null;

/** The module's renderer; null where WebAssembly is not there (`node --jitless`). */
export function claimAlertsRenderer(): ClaimAlertsRenderer | null {
  if (typeof WebAssembly !== 'object') return null;
  const code = typeof TASKDAG_CLAIM_ALERTS_MODULE === 'string' ? Buffer.from(TASKDAG_CLAIM_ALERTS_MODULE, 'base64') : claimAlertsModule();
  const memory = new WebAssembly.Memory({ initial: 1 });
  const imports = { env: { memory } };
  let modules = 0;
  /** The fixed text of one alert, all its pieces. */
  const fixedLength = Object.values(STALE_CLAIM_TEXT).join('').length;
  /** A module of its own: the code, then a custom section (id 0, 2 bytes: an empty name and its number). */
  const instance = () => {
    const numbered = new Uint8Array(code.length + 4);
    numbered.set(code);
    numbered.set([0, 2, 0, modules++ & 0x7f], code.length);
    return (new WebAssembly.Instance(new WebAssembly.Module(numbered), imports).exports as unknown as ModuleExports).alerts;
  };
  new Uint8Array(memory.buffer).set(Buffer.from(Array.from({ length: 100 }, (_, pair) => String(pair).padStart(2, '0')).join(''), 'latin1'), DIGIT_PAIRS);
  return (claims, cutoff, nowMillis, holder) => {
    // The cutoff (an ISO time) compared byte by byte is the comparison of strings only while it is ASCII.
    if (cutoff.length > CUTOFF_LIMIT - 8 || !/^[\x20-\x7e]*$/.test(cutoff)) return null;
    if (!Number.isSafeInteger(nowMillis) || Math.abs(nowMillis) > MILLIS_LIMIT) return null;
    // The module takes every string to end at the next quote: none holds an escape.
    if (claims.length < 2 || claims[0] !== OPEN_BRACKET || claims.includes(0x5c)) return null;
    const holderBytes = holder === undefined ? null : Buffer.from(holder);
    if (holderBytes && (holderBytes.length > HOLDER_LIMIT || !isPlainJsonString(holder!))) return null;
    // At most: every entry of the shortest kind (12 bytes, `["","","",0]`) an alert of the fixed text, two ages, its strings twice.
    const out = SECTION + claims.length + 8;
    const limit = out + 1 + 2 * claims.length + (Math.floor(claims.length / 12) + 1) * (fixedLength + 2 * 17 + 1 + 8);
    reserveMemory(memory, limit);
    const heap = new Uint8Array(memory.buffer);
    heap.fill(0, CUTOFF, CUTOFF + CUTOFF_LIMIT);
    heap.set(Buffer.from(cutoff, 'latin1'), CUTOFF);
    if (holderBytes) heap.set(holderBytes, HOLDER);
    heap.set(claims, SECTION);
    heap.fill(0, SECTION + claims.length, out);
    heap[out] = OPEN_BRACKET;
    const end = SECTION + claims.length;
    const now = BigInt(nowMillis);
    const holderLength = holderBytes ? holderBytes.length : -1;
    let o = out + 1;
    if (claims.length === 2 && claims[1] === CLOSE_BRACKET) {
      heap[o++] = CLOSE_BRACKET;
      return heap.subarray(out, o);
    }
    for (let at = SECTION + 1; at !== 0; at = new Int32Array(memory.buffer, STATE, 1)[0]!) {
      o = instance()(at, end, out + 1, o, cutoff.length, holderLength, now, ENTRIES_A_MODULE);
      if (o < 0) return null;
    }
    return heap.subarray(out, o);
  };
}
