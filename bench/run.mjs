// `npm run bench [-- --quick] [-- --runs N] [-- --publish] [-- --cli FILE]`: times the built
// CLI as whole processes against bare `node -e 0` on generated projects of 1k, 10k and 50k nodes,
// and the shared workload against Taskwarrior. Writes bench/results/latest.{json,md} and
// chart.svg; `--publish` also copies the chart to docs/bench-chart.svg; `--cli` times another
// build of the executable (to compare builds). Everything else lives in a temp dir that is
// removed at the end.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chartOfReport, renderChart } from './chart.mjs';
import { sharedWorkload, writeAddTaskBatch, writeProject, writeWorkloadProject } from './generate.mjs';
import { machine, markdownReport, evaluateTargets, printTable } from './report.mjs';
import { runPhase } from './phase.mjs';
import { BATCH, HISTORY_BOUND, MUTATIONS, READS, SHARED, STARTUP } from './scenarios.mjs';
import { LINKED_COMMANDS, linkedCosts, linkedFixture } from './linked.mjs';
import { TASKWARRIOR_SCENARIOS, ensureTaskwarrior, taskwarriorProject } from './taskwarrior.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const RESULTS = path.join(ROOT, 'bench', 'results');
const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    publish: { type: 'boolean', default: false },
    cli: { type: 'string', default: path.join(ROOT, 'dist', 'taskdag.js') },
  },
});
const runs = Number(options.runs ?? (options.quick ? 5 : 15));
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of runs, at least 1');
const log = (message) => process.stderr.write(`[bench] ${message}\n`);

/** Sizes and log lengths; the 10k project also has a twin with a 100-entry log (cost against history). */
const SIZES = [
  { name: '1k', size: 1_000, logEntries: 10_000 },
  { name: '10k', size: 10_000, logEntries: 100_000, twinLogEntries: 100, batch: options.quick },
  ...(options.quick ? [] : [{ name: '50k', size: 50_000, logEntries: 200_000, batch: true }]),
];
/** Items of the batch measured against one add-task (issue 9 item 8), in a phase of their own: it grows the project. */
const BATCH_ITEMS = 3_000;
const SHARED_TASKS = 5_000;
/** The project `show` is timed on in the start-up phase (issue 28 item 2): start-up, not reading, dominates. */
const STARTUP_PROJECT_NODES = 100;
/** The project a linked checkout is compared on (issue 28 item 4). */
const LINKED_PROJECT = { name: '1k', size: 1_000, logEntries: 10_000 };

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-bench-'));
const inScratch = (name) => path.join(scratch, name);
const cli = path.resolve(options.cli);
const phase = (name, items) => runPhase({ name, cli, scratch, runs, log, items });
const started = Date.now();
const report = { machine: machine(ROOT), config: { runs, quick: options.quick, cli, discarded_first_run: true }, phases: [], taskwarrior: null };
try {
  report.phases.push(await startupPhase());
  for (const size of SIZES) report.phases.push(...(await sizePhases(size)));
  report.phases.push(await linkedPhase());
  report.phases.push(await sharedPhase());
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** --version and --help, outside any project, and `show` on a project small enough that start-up is most of its cost. */
async function startupPhase() {
  const empty = { name: 'no project', checkout: inScratch('empty'), env: { HOME: inScratch('empty'), TASKDAG_HOME: inScratch('empty') }, pools: {} };
  mkdirSync(empty.checkout, { recursive: true });
  const small = await writeProject(inScratch('small'), String(STARTUP_PROJECT_NODES), { size: STARTUP_PROJECT_NODES, logEntries: 1_000, poolSize: 2 });
  const show = READS.find((scenario) => scenario.name === 'show');
  const results = phase('startup', [...STARTUP.map((scenario) => ({ fixture: empty, scenario })), { fixture: small, scenario: show }]);
  rmSync(inScratch('small'), { recursive: true, force: true });
  return { ...results, fixtures: [describe(small)] };
}

/** `show`, `status` and `take` in a checkout linked to a real server on 127.0.0.1, and in a local checkout of the same project. */
async function linkedPhase() {
  log(`linked checkout: a server on 127.0.0.1 with a copy of a ${LINKED_PROJECT.name} project`);
  const local = await writeProject(inScratch('linked-local'), LINKED_PROJECT.name, { size: LINKED_PROJECT.size, logEntries: LINKED_PROJECT.logEntries, poolSize: runs + 2 });
  const { fixture: linked, stop } = await linkedFixture(local, scratch, cli);
  try {
    const scenarios = [...READS, ...MUTATIONS].filter((scenario) => LINKED_COMMANDS.includes(scenario.name));
    const results = phase(`${LINKED_PROJECT.name}-linked`, [local, linked].flatMap((fixture) => scenarios.map((scenario) => ({ fixture, scenario }))));
    return { ...results, fixtures: [describe(local)], linked: linkedCosts(results, local.name, linked.name) };
  } finally {
    stop();
  }
}

/**
 * Every read and mutation on a project of one size; mutations and `history` also on its short-log
 * twin; then, where asked, a batch of 3,000 add-task against one add-task on the same project.
 */
async function sizePhases(size) {
  log(`generating the ${size.name} project (${size.size} nodes, ${size.logEntries} log entries)`);
  const project = (dir, name, logEntries) => writeProject(inScratch(dir), name, { size: size.size, logEntries, poolSize: runs + 2 });
  const fixtures = [await project(size.name, size.name, size.logEntries)];
  const items = [...READS, ...MUTATIONS].map((scenario) => ({ fixture: fixtures[0], scenario }));
  if (size.twinLogEntries) {
    const twin = await project(`${size.name}-short-log`, `${size.name}-log${size.twinLogEntries}`, size.twinLogEntries);
    fixtures.push(twin);
    items.push(...[...HISTORY_BOUND, ...MUTATIONS].map((scenario) => ({ fixture: twin, scenario })));
  }
  const results = [{ ...phase(size.name, items), size: size.size, fixtures: fixtures.map(describe) }];
  if (size.batch) {
    const fixture = { ...fixtures[0], batchFile: writeAddTaskBatch(inScratch(`${size.name}-batch.json`), fixtures[0].initiative, BATCH_ITEMS) };
    results.push({ ...phase(`${size.name}-batch`, BATCH.map((scenario) => ({ fixture, scenario }))), size: size.size, fixtures: [describe(fixture)] });
  }
  for (const dir of [size.name, `${size.name}-short-log`]) rmSync(inScratch(dir), { recursive: true, force: true });
  return results;
}

/** The workload shared with Taskwarrior, both tools timed in the same loop. */
async function sharedPhase() {
  log(`shared workload: ${SHARED_TASKS} tasks with dependencies, taskdag and Taskwarrior`);
  const plan = sharedWorkload(SHARED_TASKS);
  const shared = await writeWorkloadProject(inScratch('shared-taskdag'), plan);
  const items = SHARED.map((scenario) => ({ fixture: shared, scenario }));
  report.taskwarrior = ensureTaskwarrior(log);
  if (report.taskwarrior.available) {
    const peer = taskwarriorProject(inScratch('shared-taskwarrior'), plan);
    Object.assign(report.taskwarrior, { import_ms: peer.import_ms, ready_count: peer.ready_count });
    const fixture = { name: 'taskwarrior', pools: {} };
    items.push(...TASKWARRIOR_SCENARIOS.map((scenario) => ({ fixture, scenario, external: { command: 'task', options: peer.options } })));
  }
  return { ...phase('shared-5k', items), fixtures: [describe(shared)] };
}

report.targets = evaluateTargets(report);
report.duration_s = Math.round((Date.now() - started) / 1000);
report.machine.load_after = os.loadavg().map((load) => Number(load.toFixed(2)));
mkdirSync(RESULTS, { recursive: true });
writeFileSync(path.join(RESULTS, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
writeFileSync(path.join(RESULTS, 'latest.md'), markdownReport(report));
const chart = renderChart(chartOfReport(report));
writeFileSync(path.join(RESULTS, 'chart.svg'), chart);
if (options.publish) {
  mkdirSync(path.join(ROOT, 'docs'), { recursive: true });
  copyFileSync(path.join(RESULTS, 'chart.svg'), path.join(ROOT, 'docs', 'bench-chart.svg'));
}
printTable(report);
log(`done in ${report.duration_s} s; results in bench/results/ (latest.json, latest.md, chart.svg)`);

function describe(fixture) {
  const { name, nodes, edges, log: logEntries, generate_ms: generateMs } = fixture;
  return { name, nodes, edges, log: logEntries, generate_ms: generateMs };
}
