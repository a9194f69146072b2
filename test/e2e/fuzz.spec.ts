import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { fuzz, fuzzTarget } from '../support/fuzz.js';

/**
 * Random flags and values over every command (the short run; `npm run torture` runs thousands).
 * Every outcome must be one JSON value with exit 0, 1 or 2, and never CLI_INTERNAL_ERROR. The seed
 * changes every run and is printed on failure, so a failing case can be replayed.
 */
describe('bad input: fuzzed command lines over every command', function () {
  this.timeout(120_000);
  let sandbox: Sandbox;
  const seed = Date.now() % 1_000_000;

  beforeEach(async () => {
    sandbox = new Sandbox();
    await fuzzTarget(sandbox);
  });
  afterEach(() => sandbox.remove());

  it(`keeps the output contract for 600 command lines run in process (seed ${seed})`, async () => {
    const report = await fuzz(sandbox, seed, 600, false);
    expect(report.failures, `seed ${seed}`).to.deep.equal([]);
  });

  it(`keeps the output contract for 30 command lines through the built binary (seed ${seed})`, async () => {
    const report = await fuzz(sandbox, seed + 1, 30, true);
    expect(report.failures, `seed ${seed + 1}`).to.deep.equal([]);
  });
});
