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

  it('writes every time as Date.prototype.toISOString does, from 1970 to 9999', () => {
    const times = [0, 1, 999, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999)];
    for (let time = 0; time < Date.UTC(9999, 0, 1); time += 7_919_737_333_331) times.push(time);
    for (const time of times) {
      sinon.useFakeTimers(time);
      expect(new SystemClock().now(), String(time)).to.equal(new Date(time).toISOString());
      sinon.restore();
    }
  });
});
