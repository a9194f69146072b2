import { expect } from 'chai';
import { powerLossBattery } from '../support/power-loss.js';

const SEED = Number(process.env.POWER_LOSS_SEED ?? 9001);

/**
 * The power-loss proof (issue 9 item 3): the store's file operations go through a file system
 * that keeps unsynced data apart and loses or tears it at a random crash point. Across commits,
 * checkpoint rewrites, force-inits, restores and plugin table changes, the project must always load and hold every
 * acknowledged change. The long battery (thousands of points) is `npm run torture`.
 */
describe('power loss at random file operations (crash file system)', () => {
  it(`keeps every acknowledged change across 600 crash points (seed ${SEED})`, async function () {
    this.timeout(120_000);
    const figures = await powerLossBattery(SEED, 600);
    expect(figures.violations).to.deep.equal([]);
    expect(figures.power_lost_mid_step, 'crash points that fell inside a step').to.be.greaterThan(300);
  });
});
