import { expect } from 'chai';
import { laneChecksum, laneChecksumModule } from '../../adapters/lane-checksum.js';

describe('laneChecksum', () => {
  const checksumOf = (parts: Uint8Array[]) => Buffer.from(laneChecksum(parts, laneChecksumModule)!).toString('hex');
  const data = Buffer.from(Array.from({ length: 100_003 }, (_, index) => (index * 7919 + (index >> 8)) % 256));

  it('is the same for the same bytes, however they are split into parts', () => {
    const whole = checksumOf([data]);
    expect(whole).to.have.length(32);
    for (const cut of [0, 1, 31, 32, 50_000, 100_003]) expect(checksumOf([data.subarray(0, cut), data.subarray(cut)]), String(cut)).to.equal(whole);
  });

  it('changes when any one byte changes, wherever it is (each step is one-to-one in its state and its word)', () => {
    const whole = checksumOf([data]);
    for (const at of [0, 1, 15, 16, 31, 32, 4_097, 50_001, 100_002]) {
      for (const flip of [0x01, 0x80, 0xff]) {
        const changed = Buffer.from(data);
        changed[at]! ^= flip;
        expect(checksumOf([changed]), `${at} ^ ${flip}`).to.not.equal(whole);
      }
    }
  });

  it('changes when two words of the same lane trade places', () => {
    const swapped = Buffer.from(data);
    swapped.copy(swapped, 0, 32, 36);
    data.copy(swapped, 32, 0, 4);
    expect(checksumOf([swapped])).to.not.equal(checksumOf([data]));
  });
});
