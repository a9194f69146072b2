// One phase of the bench: a set of (fixture, scenario) items timed in interleaved rounds, each
// item run right after a bare `node -e 0`, so that machine noise (other jobs on the box) hits
// the floor and the commands alike and their ratio stays meaningful.
import { median, quantile, timed, timedWithPeakMemory } from './measure.mjs';

const RUN_TIMEOUT_MS = 5 * 60_000;

/** The process an item runs for run number `run` (0 is the discarded probe run). */
function commandOf(item, cli, run) {
  const { fixture, scenario, external } = item;
  const poolId = scenario.pool ? fixture.pools[scenario.pool][run] : undefined;
  if (scenario.pool && poolId === undefined) throw new Error(`fixture ${fixture.name} has no ${scenario.pool} pool node for run ${run}`);
  const argv = scenario.argv(fixture, poolId, run);
  if (external) return { file: external.command, args: argv, options: { ...external.options, timeout: RUN_TIMEOUT_MS } };
  return {
    file: process.execPath,
    args: [cli, ...argv],
    options: { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env }, timeout: RUN_TIMEOUT_MS },
  };
}

/** What a run's output says went wrong, or null when it succeeded. */
function failureOf(run) {
  if (run.status === 0) return null;
  let error = null;
  try {
    error = JSON.parse(run.stdout).error ?? null;
  } catch {
    // Not an envelope (an external tool, or a crash): the raw output tells.
  }
  return {
    exit: run.status,
    code: error?.code ?? null,
    // An internal error's envelope keeps its cause in details.reason.
    message: [error?.message ?? (run.stderr || run.stdout).trim(), error?.details?.reason].filter(Boolean).join(': ').slice(0, 300),
  };
}

/** Wall time spread, CPU time (Node processes), and the highest peak memory seen. */
function summarize(runs) {
  const wall = runs.map((run) => run.ms);
  const cpu = runs.map((run) => run.cpuMs).filter((value) => value !== null);
  const rss = runs.map((run) => run.rssKb).filter((value) => value !== null);
  return {
    median_ms: round(median(wall)),
    p25_ms: round(quantile(wall, 0.25)),
    p75_ms: round(quantile(wall, 0.75)),
    min_ms: round(Math.min(...wall)),
    max_ms: round(Math.max(...wall)),
    cpu_median_ms: cpu.length > 0 ? round(median(cpu)) : null,
    rss_kb: rss.length > 0 ? Math.max(...rss) : null,
    samples_ms: wall.map(round),
  };
}

const round = (value) => (value === null ? null : Number(value.toFixed(2)));

export function runPhase({ name, cli, scratch, runs, log, items }) {
  const phaseStarted = Date.now();
  log(`phase ${name}: ${items.length} commands × ${runs} runs, each after a node -e 0`);
  const floor = { file: process.execPath, args: ['-e', '0'], options: { cwd: scratch, env: { PATH: process.env.PATH } } };
  const baseline = [];

  const states = items.map((item) => {
    const probe = commandOf(item, cli, 0);
    const run = timedWithPeakMemory(probe.file, probe.args, probe.options, scratch);
    const failure = failureOf(run);
    const state = {
      fixture: item.fixture.name,
      scenario: item.scenario.name,
      group: item.scenario.group ?? 'peer',
      reference: item.scenario.reference === true,
      command: [item.external ? item.external.command : 'taskdag', ...probe.args.slice(item.external ? 0 : 1)].join(' '),
      status: 'ok',
      probe_rss_kb: run.rssKb,
      samples: [],
    };
    if (failure?.exit === 2 && failure.code === 'UNKNOWN_COMMAND') {
      state.status = 'unavailable';
      state.note = 'not available in this build';
    } else if (failure) {
      state.status = 'failed';
      state.error = failure;
    }
    return { item, state };
  });

  for (let run = 1; run <= runs; run++) {
    for (const { item, state } of states) {
      if (state.status !== 'ok') continue;
      baseline.push(timed(floor.file, floor.args, floor.options));
      const command = commandOf(item, cli, run);
      const result = timed(command.file, command.args, command.options);
      const failure = failureOf(result);
      if (failure) {
        state.status = 'failed';
        state.error = { ...failure, run };
        log(`  ${state.fixture} ${state.scenario} failed on run ${run}: ${failure.code ?? failure.exit} ${failure.message}`);
        continue;
      }
      state.samples.push(result);
    }
  }

  if (baseline.length === 0) baseline.push(timed(floor.file, floor.args, floor.options));
  const floorSummary = summarize(baseline);
  const ratio = (value, of) => (value === null || of === null ? null : Number((value / of).toFixed(3)));
  const results = states.map(({ state }) => {
    const { samples, probe_rss_kb: probeRss, ...rest } = state;
    if (state.status !== 'ok') return { ...rest, median_ms: null, ratio: null };
    const summary = summarize(samples);
    return {
      ...rest,
      ...summary,
      rss_kb: summary.rss_kb ?? probeRss,
      ratio: ratio(summary.median_ms, floorSummary.median_ms),
      cpu_ratio: ratio(summary.cpu_median_ms, floorSummary.cpu_median_ms),
    };
  });
  log(`phase ${name} done in ${((Date.now() - phaseStarted) / 1000).toFixed(0)} s (floor ${floorSummary.median_ms} ms)`);
  return { name, baseline: floorSummary, items: results };
}
