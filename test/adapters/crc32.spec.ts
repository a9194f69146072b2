import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32, crc32OfWords, plainCrc32 } from '../../adapters/crc32.js';
import { crc32Module, wasmChecks } from '../../adapters/crc32-wasm.js';

describe('crc32', () => {
  it('is the CRC-32 zlib computes, on known vectors and random data', () => {
    expect(crc32(Buffer.from('123456789'))).to.equal(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).to.equal(0);
    for (let length = 1; length < 2_000; length += 97) {
      const data = Buffer.from(Array.from({ length }, (_, index) => (index * 131 + length) % 256));
      expect(crc32(data), String(length)).to.equal(zlibCrc32(data));
    }
  });

  it('of words is the CRC-32 of the words written 4 bytes big-endian each, as the checkpoint seeds its bucket checks', () => {
    for (const words of [[0], [0, 1], [5, 7, 123_456], [0xffffffff, 0x80000000, 255], [1_234_567_890, 42, 0x01020304]]) {
      const bytes = Buffer.alloc(words.length * 4);
      words.forEach((word, at) => bytes.writeUInt32BE(word, at * 4));
      expect(crc32OfWords(...words), words.join()).to.equal(zlibCrc32(bytes));
    }
  });

  it('continues the CRC-32 of the bytes before, as zlib does: a long line is checksummed in slices', () => {
    const data = Buffer.from(Array.from({ length: 5_000 }, (_, index) => (index * 31) % 256));
    for (const cut of [0, 1, 1_000, 4_999, 5_000]) {
      expect(crc32(data.subarray(cut), crc32(data.subarray(0, cut))), String(cut)).to.equal(zlibCrc32(data));
    }
  });

  it('past the megabyte a process checksums itself, goes on as zlib computes it, continuing a CRC-32 begun before', () => {
    const data = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 7919) % 256));
    const begun = crc32(data.subarray(0, 100_000));
    // Five passes of 300 KB cross the budget whatever was checksummed before.
    for (let pass = 0; pass < 5; pass++) expect(crc32(data), String(pass)).to.equal(zlibCrc32(data));
    expect(crc32(data.subarray(100_000), begun)).to.equal(zlibCrc32(data));
  });

  it("continues the CRC-32 before no bytes, past the megabyte too, where zlib's answers 0 for a view of an empty ArrayBuffer", () => {
    const slice = Buffer.alloc(64 * 1024, 3);
    // Counted slices past the megabyte a process checksums itself: zlib's from then on.
    for (let pass = 0; pass < 17; pass++) crc32(slice);
    for (const empty of [new Uint8Array(new ArrayBuffer(0)), Buffer.from(new ArrayBuffer(0)), Buffer.alloc(0), slice.subarray(5, 5)]) expect(crc32(empty, 0x6522df69)).to.equal(0x6522df69);
  });

  it('hands a buffer of 128 KiB or more to zlib at once (the loop here runs cold in a short process), and loads no zlib for less', () => {
    const crcModule = path.resolve(__dirname, '../../adapters/crc32.js');
    const zlibLoadedAfter = (length: number) => {
      const script = `const { crc32 } = require(${JSON.stringify(crcModule)}); const data = Buffer.alloc(${length}, 7); const crc = crc32(data);
        process.stdout.write(JSON.stringify({ crc, zlib: process.moduleLoadList.includes('NativeModule zlib') }));`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(run.status, run.stderr).to.equal(0);
      const { crc, zlib } = JSON.parse(run.stdout) as { crc: number; zlib: boolean };
      expect(crc, String(length)).to.equal(zlibCrc32(Buffer.alloc(length, 7)));
      return zlib;
    };
    expect(zlibLoadedAfter(128 * 1024)).to.equal(true);
    expect(zlibLoadedAfter(128 * 1024 - 1)).to.equal(false);
  });

  describe('its WebAssembly module and its plain loop', () => {
    const data = Buffer.from(Array.from({ length: 200_000 }, (_, index) => (index * 2_654_435_761) >>> 24));

    it('compute what zlib does, at every length, continuing a CRC-32 begun before', () => {
      const sut = wasmChecks()!.crc32;
      for (let length = 0; length < 3_000; length += 61) {
        const bytes = data.subarray(7, 7 + length);
        expect([sut(bytes, 0), plainCrc32(bytes)], String(length)).to.deep.equal([zlibCrc32(bytes), zlibCrc32(bytes)]);
        const cut = length >> 1;
        expect(sut(bytes.subarray(cut), sut(bytes.subarray(0, cut), 0)), `${length} cut`).to.equal(zlibCrc32(bytes));
      }
    });

    it("grows the module's memory for bytes past its first page, and still checks short ones after", () => {
      const sut = wasmChecks()!.crc32;
      expect(sut(data, 0)).to.equal(zlibCrc32(data));
      expect(sut(data.subarray(0, 10), 0)).to.equal(zlibCrc32(data.subarray(0, 10)));
    });

    it('fills the four tables of slicing by four as it is made, each the one before taken a byte further', () => {
      const { memory } = new WebAssembly.Instance(new WebAssembly.Module(crc32Module())).exports as { memory: WebAssembly.Memory };
      const tables = new Uint32Array(memory.buffer, 0, 1024);
      for (let byte = 0; byte < 256; byte++) {
        let crc = byte;
        for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
        expect(tables[byte], `table 0, ${byte}`).to.equal(crc >>> 0);
        for (let table = 1; table < 4; table++) {
          const before = tables[(table - 1) * 256 + byte]!;
          expect(tables[table * 256 + byte], `table ${table}, ${byte}`).to.equal(((before >>> 8) ^ tables[before & 0xff]!) >>> 0);
        }
      }
    });

    it('is a valid module of three functions, its table filled as it is made', () => {
      expect(WebAssembly.validate(crc32Module())).to.equal(true);
      expect(wasmChecks()!.crc32(Buffer.from('123456789'), 0)).to.equal(0xcbf43926);
    });

    it('falls back to the plain loop where WebAssembly is not there (node --jitless)', () => {
      const module = path.resolve(__dirname, '../../adapters/crc32.js');
      const script = `const { crc32 } = require(${JSON.stringify(module)}); process.stdout.write(JSON.stringify([typeof WebAssembly, crc32(Buffer.from('123456789'))]));`;
      const run = spawnSync(process.execPath, ['--jitless', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect(JSON.parse(run.stdout)).to.deep.equal(['undefined', 0xcbf43926]);
    });
  });
});
