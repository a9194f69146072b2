import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { CliDispatcher } from '../support/cli-dispatcher.js';
import { DifferentialPair, StepSource, type Step } from '../support/differential.js';

/**
 * The command line serves graph reads from a program of its own (f1818f8) over the lazily read
 * checkpoint: after a random session, each read the built binary prints equals the answer of the
 * same state held whole as plain data.
 */
describe('e2e: graph reads of the binary answer as the same state read whole', function () {
  this.timeout(120_000);
  let sandbox: Sandbox;

  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(() => sandbox.remove());

  it('seed 31: two sessions of 60 random steps, 20 reads through the binary after each', async () => {
    const { project_id: project } = await sandbox.init();
    // The session's claims are a day old when the binary reads them, as the plain side's clock then says.
    const sut = new DifferentialPair(path.join(sandbox.home, '.taskdag'), project, Date.now() - 86_400_000);
    await sut.init();
    const source = new StepSource(31);
    const binary = new CliDispatcher(sandbox);
    for (const session of [0, 1]) {
      await sut.run(source, 60, `session ${session}`);
      for (let read = 0; read < 20; read++) await sut.compareRead(binary, typedRead(source), `session ${session} read ${read}`);
    }
  });
});

/** A random read that can be typed as a command line: a search query starting with `-` would be taken for an option. */
function typedRead(source: StepSource): Step {
  for (;;) {
    const step = source.read();
    if (!String(step.args.query ?? '').startsWith('-')) return step;
  }
}
