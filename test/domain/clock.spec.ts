import { expect } from 'chai';
import { isTimestamp, millisBetween } from '../../domain/clock.js';

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
});
