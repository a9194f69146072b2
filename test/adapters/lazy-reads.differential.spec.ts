import { DifferentialPair, StepSource } from '../support/differential.js';
import { useTempDir } from '../support/temp-dir.js';

/**
 * Issue 28 read the checkpoint by position (the slot table, the heads line's sections, the saved
 * endpoints, status by bucket pages, search skipping stored bytes that cannot hold the query):
 * every operation, read or write, on random sessions, answers from the file store as the command
 * line reads it exactly as from the same state held whole as plain data, and leaves the same state.
 * Long notes make commits write new checkpoints along the way. A failure names its seed and step.
 */
describe('the lazily read file store answers as the same state read whole', function () {
  this.timeout(120_000);
  const tempDir = useTempDir();
  const SEEDS = [1, 2, 3, 4];
  const STEPS = 100;

  for (const seed of SEEDS) {
    it(`seed ${seed}: ${STEPS} random steps, every answer and state equal`, async () => {
      const sut = new DifferentialPair(tempDir(), 'diff-1234');
      await sut.init();
      await sut.run(new StepSource(seed), STEPS, `seed ${seed}`);
    });
  }
});

describe('the lazily read file store on a checkpoint of several bucket pages answers as the same state read whole', function () {
  this.timeout(120_000);
  const tempDir = useTempDir();

  it('seed 9: 450 tasks in one batch, then 60 random steps, every answer and state equal', async () => {
    const sut = new DifferentialPair(tempDir(), 'diff-1234');
    await sut.init();
    const source = new StepSource(9);
    await sut.bulk(source, 450);
    await sut.run(source, 60, 'seed 9');
  });
});

describe('the file store a server keeps in memory answers as the same state read whole', function () {
  this.timeout(120_000);
  const tempDir = useTempDir();

  it('seed 5: 150 random steps through the group commit, nodes read from the checkpoint kept as its bytes', async () => {
    const sut = new DifferentialPair(tempDir(), 'diff-1234', undefined, true);
    await sut.init();
    await sut.run(new StepSource(5), 150, 'seed 5 hot');
  });
});
