import { expect } from 'chai';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { copyForCheckpoint, decodeCheckpoint, encodeCheckpoint, encodeCheckpointInSlices, type Checkpoint } from '../../adapters/checkpoint-file.js';
import { nodeFileSystem } from '../../adapters/file-system.js';
import { readRecords, replayChangeSets } from '../../adapters/ledger-records.js';
import { edgesOf, nodeIds, nodeOf, plainGraph } from '../../domain/node-map.js';
import { indexesOf, projectState } from '../../domain/project-state.js';
import { DifferentialPair, StepSource } from '../support/differential.js';
import { seeded } from '../support/fuzz.js';
import { useTempDir } from '../support/temp-dir.js';

const PROJECT = 'rw-1234';

/**
 * The command line's checkpoint rewrite copies what the ledger tail did not change from the
 * checkpoint it read (issue 28). Its oracle: after random tails of every kind of mutation (tasks,
 * gates, knowledge, edges added and removed, supersedes, notes, updates, the lifecycle, initiatives),
 * the checkpoint read as the command line reads it (lazily, the tail replayed, some nodes, heads
 * and edges read as a command would), encoded, is byte for byte the encoding of the same graph
 * made plain, every head derived again from the nodes. Some rewrites are kept as the checkpoint,
 * so that later tails start from a checkpoint a rewrite wrote.
 */
describe('a checkpoint rewrite is the whole encoding of the graph it writes', function () {
  this.timeout(120_000);
  const tempDir = useTempDir();

  // Seeds 31 and 32 first make 260 nodes: past the first 100 heads of a group, status lists none, so
  // most lines are never read and a rewrite copies them in runs, their endpoints and checksums with
  // them. Seed 32 rewrites as a server does, from a copy encoded in slices while commits go on.
  const cases = [[21, 0, 90, 'the command line'], [22, 0, 90, 'the command line'], [23, 0, 90, 'the command line'], [31, 260, 60, 'the command line'], [32, 260, 60, 'a server']] as const;
  for (const [seed, nodes, steps, writer] of cases) {
    it(`seed ${seed}: ${nodes} nodes made, then ${steps} random steps, each tail rewritten as ${writer} does it and encoded whole, the same bytes`, async () => {
      const home = tempDir();
      const sut = new DifferentialPair(home, PROJECT);
      await sut.init();
      const source = new StepSource(seed, 1500);
      const random = seeded(seed * 7);
      const stateDir = path.join(home, 'projects', PROJECT);
      for (let made = 0; made < nodes; ) {
        const creation = source.next();
        if (!creation.operation.startsWith('add-')) continue;
        source.settled(await sut.step(creation, `seed ${seed} node ${made++}`));
      }
      let rewrites = 0;
      for (let step = 0; step < steps; step++) {
        const next = random() < 0.04 ? { operation: 'add-initiative', args: { name: `i${step}` }, agent: 'alice' } : source.next();
        source.settled(await sut.step(next, `seed ${seed} step ${step}`));
        const { incremental, whole } = await rewriteBothWays(stateDir, random, writer);
        expect(incremental.equals(whole), `seed ${seed} step ${step} (${next.operation}): ${firstDifference(incremental, whole)}`).to.equal(true);
        rewrites += 1;
        if (random() < 0.3) replaceCheckpoint(stateDir, incremental);
      }
      expect(rewrites).to.equal(steps);
      await sut.assertSameState(`seed ${seed}`);
    });
  }
});

/**
 * The project's checkpoint with its ledger tail replayed, as the command line loads it, with what a
 * command reads before it commits read at random; then its rewrite (what the store writes past the
 * threshold, as `writer` writes it) and the encoding of the same graph made plain, with fresh indexes.
 */
async function rewriteBothWays(stateDir: string, random: () => number, writer: 'the command line' | 'a server'): Promise<{ incremental: Buffer; whole: Buffer }> {
  const file = path.join(stateDir, 'tasks.json');
  const opened = nodeFileSystem.open(file);
  try {
    const checkpoint = decodeCheckpoint(opened, file);
    const ledgerPath = path.join(stateDir, checkpoint.ledger.file);
    const { records, end } = readRecords(nodeFileSystem.readFrom(ledgerPath, checkpoint.ledger.bytes), ledgerPath, checkpoint.ledger.bytes);
    replayChangeSets(checkpoint.graph, records, ledgerPath);
    readAsACommand(checkpoint, random);
    const ledger = { file: checkpoint.ledger.file, bytes: checkpoint.ledger.bytes + end };
    const incremental =
      writer === 'a server' ? Buffer.concat(await encodeCheckpointInSlices(copyForCheckpoint(checkpoint.graph), ledger, checkpoint.nodes)) : encodeCheckpoint(checkpoint.graph, ledger, checkpoint.nodes);
    const whole = encodeCheckpoint(projectState(structuredClone(plainGraph(checkpoint.graph)), null, checkpoint.graph.requests.entries()), ledger);
    return { incremental, whole };
  } finally {
    opened.close();
  }
}

/** Reads, at random, what commands read before a rewrite: some nodes, every head, some groups, the knowledge, the edges. */
function readAsACommand(checkpoint: Checkpoint, random: () => number): void {
  const { graph } = checkpoint;
  const statuses = indexesOf(graph).statuses;
  if (random() < 0.3) statuses.knowledge();
  if (random() < 0.3) statuses.statusGroup('task', 'ready').first(20);
  if (random() < 0.3) statuses.all();
  if (random() < 0.5) {
    const ids = nodeIds(graph);
    for (let read = 0; read < 5; read++) nodeOf(graph, ids[Math.floor(random() * ids.length)]!);
  }
  if (random() < 0.2) edgesOf(graph);
}

function replaceCheckpoint(stateDir: string, bytes: Buffer): void {
  const file = path.join(stateDir, 'tasks.json');
  writeFileSync(`${file}.tmp-oracle`, bytes);
  renameSync(`${file}.tmp-oracle`, file);
  expect(readFileSync(file).equals(bytes)).to.equal(true);
}

/** Where two encodings first differ, and the text around it, for the failure message. */
function firstDifference(a: Buffer, b: Buffer): string {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  if (at === a.length && at === b.length) return 'none';
  const [linesA, linesB] = [a.toString('utf8').split('\n'), b.toString('utf8').split('\n')];
  const line = linesA.findIndex((text, index) => index > 1 && text !== linesB[index]);
  if (line > 1) {
    let within = 0;
    while (linesA[line]![within] === linesB[line]![within]) within++;
    return `line ${line + 1}, char ${within}: ${JSON.stringify(linesA[line]!.slice(Math.max(0, within - 150), within + 80))} against ${JSON.stringify(linesB[line]!.slice(Math.max(0, within - 150), within + 80))}`;
  }
  return `byte ${at}: ${JSON.stringify(a.toString('utf8', Math.max(0, at - 60), at + 60))} against ${JSON.stringify(b.toString('utf8', Math.max(0, at - 60), at + 60))}`;
}
