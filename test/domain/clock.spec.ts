import { expect } from 'chai';
import { isTimestamp, millisBetween, timestampBefore } from '../../domain/clock.js';

describe('clock (spec 1.1 timestamps)', () => {
  it('accepts only ISO 8601 UTC with milliseconds', () => {
    expect(isTimestamp('2026-11-22T04:56:39.123Z')).to.equal(true);
    for (const value of ['2026-11-22T04:56:39Z', '2026-11-22T04:56:39.123+00:00', '2026-11-22 04:56:39.123Z', '2026-11-22T04:56:39.1234Z', 1, null]) {
      expect(isTimestamp(value), String(value)).to.equal(false);
    }
  });

  it('measures milliseconds between two timestamps', () => {
    expect(millisBetween('2026-11-22T04:56:39.123Z', '2026-11-22T04:56:40.000Z')).to.equal(877);
  });

  it('gives the timestamp some milliseconds earlier in the same format, so that ordering is string ordering', () => {
    expect(timestampBefore('2026-11-22T04:56:40.000Z', 877)).to.equal('2026-11-22T04:56:39.123Z');
    expect('2026-11-22T04:56:39.122Z' <= timestampBefore('2026-11-22T04:56:40.000Z', 877)).to.equal(true);
    expect('2026-11-22T04:56:39.124Z' <= timestampBefore('2026-11-22T04:56:40.000Z', 877)).to.equal(false);
  });

  it('gives the empty string, before every timestamp, for a cutoff out of range (--stale-ms as large as it goes)', () => {
    expect(timestampBefore('2026-11-22T04:56:40.000Z', Number.MAX_SAFE_INTEGER)).to.equal('');
  });
});
