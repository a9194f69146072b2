// The long battery of durability proofs (docs/reliability.md): many SIGKILLs of writers in the
// middle of mutations, batches and restores; 16 processes x 25 mutations at once; a large fuzz of
// random command lines. `npm run torture` builds first. Sizes can be changed through the
// environment (TORTURE_KILLS, TORTURE_RESTORE_KILLS, TORTURE_CONCURRENT_ROUNDS, TORTURE_FUZZ,
// TORTURE_FUZZ_BINARY, TORTURE_POWER_LOSSES, TORTURE_DIFFERENTIAL, TORTURE_SEED). Prints one line per battery and a JSON summary at the end;
// exits 1 if any proof failed.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Sandbox } = require('../build/test/support/cli.js');
const { readCheckpointJson } = require('../build/test/support/checkpoint-json.js');
const path = require('node:path');
const { concurrentWriters, crashMutationWriter, crashRestores, loadState, projectDir } = require('../build/test/support/durability.js');
const { fuzz, fuzzTarget } = require('../build/test/support/fuzz.js');
const { powerLossBattery } = require('../build/test/support/power-loss.js');
const { DifferentialPair, StepSource } = require('../build/test/support/differential.js');

const size = (name, fallback) => Number(process.env[name] ?? fallback);
const KILLS = size('TORTURE_KILLS', 240);
const RESTORE_KILLS = size('TORTURE_RESTORE_KILLS', 60);
const CONCURRENT_ROUNDS = size('TORTURE_CONCURRENT_ROUNDS', 3);
const FUZZ = size('TORTURE_FUZZ', 10_000);
const FUZZ_BINARY = size('TORTURE_FUZZ_BINARY', 300);
const POWER_LOSSES = size('TORTURE_POWER_LOSSES', 5000);
const DIFFERENTIAL = size('TORTURE_DIFFERENTIAL', 8);
const SEED = size('TORTURE_SEED', Date.now() % 1_000_000);

const summary = { node: process.version, seed: SEED, batteries: {} };
let failed = false;

async function battery(name, run) {
  const started = Date.now();
  const sandbox = new Sandbox();
  try {
    const figures = await run(sandbox);
    summary.batteries[name] = { ok: true, seconds: (Date.now() - started) / 1000, ...figures };
  } catch (error) {
    failed = true;
    summary.batteries[name] = { ok: false, seconds: (Date.now() - started) / 1000, error: String(error?.stack ?? error) };
  } finally {
    sandbox.remove();
  }
  console.log(`${name}: ${JSON.stringify(summary.batteries[name])}`);
}

async function project(sandbox) {
  await sandbox.init();
  await sandbox.ok(['add-initiative', 'core', '--as', 'writer']);
}

await battery('crash: SIGKILL during mutations and batches', async (sandbox) => {
  await project(sandbox);
  let committed = 0;
  let acknowledged = 0;
  let inFlightCommitted = 0;
  // How often the checkpoint was rewritten between two kills (a lower bound of checkpoint writes).
  const checkpointPosition = () => readCheckpointJson(path.join(projectDir(sandbox), 'tasks.json')).ledger.bytes;
  let checkpointsSeen = 0;
  for (let kill = 0; kill < KILLS; kill++) {
    const before = committed;
    const position = checkpointPosition();
    const round = await crashMutationWriter(sandbox, committed + 1, 1, 400);
    acknowledged += round.acknowledged - before;
    if (round.committed > round.acknowledged) inFlightCommitted++;
    if (checkpointPosition() !== position) checkpointsSeen++;
    committed = round.committed;
  }
  const state = await loadState(sandbox);
  return {
    kills: KILLS,
    mutations_committed: committed,
    mutations_acknowledged: acknowledged,
    kills_after_commit_before_report: inFlightCommitted,
    rounds_with_a_checkpoint_rewrite: checkpointsSeen,
    torn_or_lost: 0,
    final_revision: state.revision,
    final_nodes: Object.keys(state.nodes).length,
  };
});

await battery('power loss: random crash points on the crash file system', async () => {
  const figures = await powerLossBattery(SEED, POWER_LOSSES);
  if (figures.violations.length > 0) throw new Error(`${figures.violations.length} violations, first: ${JSON.stringify(figures.violations.slice(0, 3))}`);
  return { ...figures, violations: 0 };
});

await battery('crash: SIGKILL during restores', async (sandbox) => {
  await project(sandbox);
  const position = await crashRestores(sandbox, RESTORE_KILLS, 200);
  const listed = await sandbox.ok(['snapshots']);
  return { kills: RESTORE_KILLS, restores_committed: position.restores, snapshots_listed: listed.snapshots.length, torn_or_lost: 0 };
});

await battery('concurrency: 16 processes x 25 mutations at once', async (sandbox) => {
  await project(sandbox);
  const rounds = [];
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    const fresh = new Sandbox();
    try {
      await project(fresh);
      rounds.push(await concurrentWriters(fresh, 16, 25, 'writer'));
    } finally {
      fresh.remove();
    }
  }
  const binary = await concurrentWriters(sandbox, 16, 25, 'binary');
  return {
    writer_rounds: rounds.length,
    mutations_per_round: 400,
    writer_mutations_per_second: rounds.map((r) => Math.round((r.mutations / r.elapsedMs) * 1000)),
    binary_round_mutations: binary.mutations,
    binary_mutations_per_second: Math.round((binary.mutations / binary.elapsedMs) * 1000),
    missing_or_out_of_order: 0,
  };
});

await battery('fuzz: random flags and values over every command', async (sandbox) => {
  await fuzzTarget(sandbox);
  const inProcess = await fuzz(sandbox, SEED, FUZZ, false);
  const binary = await fuzz(sandbox, SEED + 1, FUZZ_BINARY, true);
  const failures = [...inProcess.failures, ...binary.failures];
  if (failures.length > 0) throw new Error(`${failures.length} contract violations, first: ${JSON.stringify(failures.slice(0, 3))}`);
  return { in_process_cases: inProcess.cases, in_process_exits: inProcess.byExit, binary_cases: binary.cases, binary_exits: binary.byExit, violations: 0 };
});

await battery('differential: the lazily read store answers as the same state read whole', async (sandbox) => {
  // Sessions of 400 random steps on the file store as the command line reads it (every third over
  // 300 tasks made in one batch), and one as a server keeps it, with notes long enough for its
  // background checkpoints (past 4 MiB of ledger): each answer and state equal to the plain data's.
  const home = path.join(sandbox.root, 'differential');
  for (let session = 0; session < DIFFERENTIAL; session++) {
    const sut = new DifferentialPair(path.join(home, String(session)), 'differential-1', undefined, false);
    await sut.init();
    const source = new StepSource(SEED + session);
    if (session % 3 === 0) await sut.bulk(source, 300);
    await sut.run(source, 400, `seed ${SEED + session}`);
  }
  const hot = new DifferentialPair(path.join(home, 'hot'), 'differential-1', undefined, true);
  await hot.init();
  await hot.run(new StepSource(SEED, 2_500_000), 250, `seed ${SEED} hot`);
  return { sessions: DIFFERENTIAL, steps_each: 400, hot_sessions: 1, differences: 0 };
});

console.log(JSON.stringify(summary, null, 2));
process.exitCode = failed ? 1 : 0;
