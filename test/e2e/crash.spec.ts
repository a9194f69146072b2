import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { concurrentWriters, crashMutationWriter, crashRestores } from '../support/durability.js';

/**
 * The short run of the crash and concurrency proofs; `npm run torture` runs the long battery
 * (docs/reliability.md). Each kill lands at a random instant while a writer process is committing
 * mutations; the state must then load and be exactly the state before or after the mutation in
 * flight, with every acknowledged mutation in it.
 */
describe('crash and concurrency proofs (short run)', function () {
  this.timeout(120_000);
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'writer']);
  });
  afterEach(() => sandbox.remove());

  it('keeps every acknowledged mutation and never a torn state across 25 SIGKILLs of a writer', async () => {
    let committed = 0;
    for (let kill = 0; kill < 25; kill++) committed = (await crashMutationWriter(sandbox, committed + 1, 1, 120)).committed;
    expect(committed).to.be.greaterThan(0);
  });

  it('leaves the state before or after a restore in flight across 8 SIGKILLs', async () => {
    await crashRestores(sandbox, 8, 150);
    expect((await sandbox.run(['snapshots'])).code).to.equal(0);
  });

  it('commits all 400 mutations of 16 processes x 25 running at once, in order, with a complete log', async () => {
    const { mutations } = await concurrentWriters(sandbox, 16, 25);
    expect(mutations).to.equal(400);
  });
});
