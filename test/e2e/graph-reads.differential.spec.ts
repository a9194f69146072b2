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

  // Seed 66 once failed a `state` read here: replayed at 7a7b87a (these sessions, and 120 steps
  // with 30 reads as the replay had it) every read equals the plain state's, structurally and
  // byte for byte; the replay never showed a diff because its diff printer looped forever on equal
  // answers. It stays, in the shape of that replay. The likely cause, found later: the harness
  // decoded each pipe read of the binary's output alone, so a character split between two reads
  // became two U+FFFD on a loaded machine (test/e2e/cli-harness.spec.ts; fixed in test/support/cli.ts).
  for (const [seed, steps, reads] of [
    [31, 60, 20],
    [66, 120, 30],
  ] as const) {
    it(`seed ${seed}: two sessions of ${steps} random steps, ${reads} reads through the binary after each`, async () => {
      const { project_id: project } = await sandbox.init();
      // The session's claims are a day old when the binary reads them, as the plain side's clock then says.
      const sut = new DifferentialPair(path.join(sandbox.home, '.taskdag'), project, Date.now() - 86_400_000);
      await sut.init();
      const source = new StepSource(seed);
      const binary = new CliDispatcher(sandbox);
      for (const session of [0, 1]) {
        await sut.run(source, steps, `session ${session}`);
        for (let read = 0; read < reads; read++) await sut.compareRead(binary, typedRead(source), `session ${session} read ${read}`);
      }
    });
  }
});

/**
 * A random read that can be typed as a command line: a search query starting with `-` would be
 * taken for an option, and one holding half a surrogate pair (a query sliced from a stored text
 * can cut an emoji in two) cannot be passed at all: argv is UTF-8, and Node hands the binary
 * U+FFFD in its place, so the binary would search for another string than the plain store.
 */
function typedRead(source: StepSource): Step {
  for (;;) {
    const step = source.read();
    const query = String(step.args.query ?? '');
    if (!query.startsWith('-') && !LONE_SURROGATE.test(query)) return step;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
