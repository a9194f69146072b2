import { expect } from 'chai';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from '../../adapters/crc32.js';

describe('crc32', () => {
  it('is the CRC-32 zlib computes, on known vectors and random data', () => {
    expect(crc32(Buffer.from('123456789'))).to.equal(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).to.equal(0);
    for (let length = 1; length < 2_000; length += 97) {
      const data = Buffer.from(Array.from({ length }, (_, index) => (index * 131 + length) % 256));
      expect(crc32(data), String(length)).to.equal(zlibCrc32(data));
    }
  });
});
