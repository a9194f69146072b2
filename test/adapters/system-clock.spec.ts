import { expect } from 'chai';
import sinon from 'sinon';
import { SystemClock } from '../../adapters/system-clock.js';
import { isTimestamp } from '../../domain/clock.js';

describe('SystemClock', () => {
  it('tells the time as ISO 8601 UTC with milliseconds', () => {
    sinon.useFakeTimers(Date.UTC(2026, 10, 22, 4, 56, 39, 5));
    const now = new SystemClock().now();
    expect(now).to.equal('2026-11-22T04:56:39.005Z');
    expect(isTimestamp(now)).to.equal(true);
  });
});
