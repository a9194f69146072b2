// The point commands (show, context, and the mutations of bench/scenarios.mjs) of this checkout
// against other builds of taskdag (BENCHMARKS.md, issue 28), in interleaved rounds: each command
// of each build runs right after a bare `node -e 0`, the builds taking turns to go first, so
// machine noise hits them and the floor alike. Each build writes the project this checkout's
// generator plans with its own store, so each reads the checkpoint layout it writes, and all read
// the same graph (an older generator lacks the bench scope that `context` and `take` read).
// Usage (after npm run build here and there):
//   node bench/point-pairs.mjs <other checkout>... [--sizes 10000,50000] [--runs 9] [--commands 'status --limit 20,search (one match)'] [--answer-floor]
// (`--commands`: scenario names of bench/scenarios.mjs, comma-separated, ACTIONS and STARTUP (`--version`, `--help`) among them; default the point commands.)
// `--answer-floor`: each read (and `take (large answer)`) is also timed against Node parsing and printing an answer of the
// same size (its answer of the first round, read from a file, `JSON.parse`, `JSON.stringify`,
// written to stdout), run right after it in the same round: issue 28's reference for commands whose
// answer grows with the graph (`status` without a limit: within 2x of that).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { storeOf, writeProject } from './generate.mjs';
import { median, timed } from './measure.mjs';
import { ACTIONS, MUTATIONS, READS, STARTUP } from './scenarios.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const flagged = new Set(['--sizes', '--runs', '--commands'].map((name) => process.argv.indexOf(name) + 1));
const OTHERS = process.argv.slice(2).filter((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2)).map((other) => path.resolve(other));
if (OTHERS.length === 0) {
  console.error('usage: node bench/point-pairs.mjs <other checkout>... [--sizes 10000,50000] [--runs 9]');
  process.exit(2);
}
const SIZES = option('--sizes', '10000,50000').split(',').map(Number);
/** At most the pool size less the probe run: each run of take/submit/accept consumes a pool node. */
const RUNS = Math.min(Number(option('--runs', 9)), 19);
/** The log the bench builds with each size (bench/all.mjs): 100k entries, 200k at 50k nodes; ten per node on a small project (the start-up phase's 100 nodes and 1,000 entries). */
const logEntriesOf = (size) => (size >= 50_000 ? 200_000 : size >= 10_000 ? 100_000 : size * 10);
/** The generator needs six pool tasks per run on top of the project's own: 20 runs' worth, fewer on a small project (10 at 100 nodes). */
const poolSizeOf = (size) => Math.min(20, Math.floor(size / 10));
const COMMANDS = option('--commands', 'show,context,take,submit,accept,add-task,update,add-note').split(',');
const SCENARIOS = [...STARTUP, ...READS, ...MUTATIONS, ...ACTIONS].filter((scenario) => COMMANDS.includes(scenario.name));
/** The other actions' pools, laid down only when one of them is timed: the project is otherwise as before. */
const actionPools = SCENARIOS.some((scenario) => ACTIONS.includes(scenario));

const builds = [{ name: 'this', root: ROOT }, ...OTHERS.map((root) => ({ name: path.basename(root), root }))];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-point-pairs-'));
const floor = { file: process.execPath, args: ['-e', '0'], options: { cwd: scratch, env: { PATH: process.env.PATH } } };
const round = (value) => Number(value.toFixed(2));
const ANSWER_FLOOR = process.argv.includes('--answer-floor');
/** Node parsing and printing the answer saved in the file it is given. */
const PARSE_AND_PRINT = "const fs = require('node:fs'); process.stdout.write(JSON.stringify(JSON.parse(fs.readFileSync(process.argv[1], 'utf8'))) + '\\n')";

try {
  const report = [];
  for (const size of SIZES) {
    const fixtures = {};
    for (const build of builds) {
      fixtures[build.name] = await writeProject(path.join(scratch, `${build.name}-${size}`), `s${size}`, { size, logEntries: logEntriesOf(size), poolSize: poolSizeOf(size), actionPools }, storeOf(build.root));
    }
    const samples = new Map();
    const floors = [];
    const runs = Math.min(RUNS, poolSizeOf(size) - 1);
    for (let run = 1; run <= runs; run++) {
      for (const scenario of SCENARIOS) {
        const order = builds.map((_, at) => builds[(at + run) % builds.length]);
        for (const build of order) {
          const fixture = fixtures[build.name];
          const poolId = scenario.pool ? fixture.pools[scenario.pool][run] : undefined;
          floors.push(timed(floor.file, floor.args, floor.options));
          const args = [path.join(build.root, 'dist/taskdag.js'), ...scenario.argv(fixture, poolId, run)];
          const result = timed(process.execPath, args, { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env } });
          if (result.status !== 0) throw new Error(`${build.name} ${scenario.name} at ${size}: exit ${result.status} ${result.stdout.slice(0, 300)}`);
          const key = `${scenario.name}/${build.name}`;
          samples.set(key, [...(samples.get(key) ?? []), result]);
          if (ANSWER_FLOOR && (scenario.group === 'read' || scenario.largeAnswer)) {
            const answer = path.join(scratch, `answer-${build.name}-${size}-${scenario.name.replace(/\W+/g, '-')}.json`);
            if (run === 1) writeFileSync(answer, result.stdout);
            const floorKey = `${scenario.name}/${build.name}/answer`;
            samples.set(floorKey, [...(samples.get(floorKey) ?? []), timed(process.execPath, ['-e', PARSE_AND_PRINT, answer], floor.options)]);
          }
        }
      }
    }
    const floorWall = median(floors.map((run) => run.ms));
    const floorCpu = median(floors.map((run) => run.cpuMs));
    for (const scenario of SCENARIOS) {
      const row = { size, command: scenario.name, floor_ms: round(floorWall), floor_cpu_ms: round(floorCpu) };
      for (const build of builds) {
        const runs = samples.get(`${scenario.name}/${build.name}`);
        const wall = median(runs.map((run) => run.ms));
        const cpu = median(runs.map((run) => run.cpuMs));
        Object.assign(row, { [`${build.name}_ms`]: round(wall), [`${build.name}_ratio`]: round(wall / floorWall), [`${build.name}_cpu_ratio`]: round(cpu / floorCpu) });
        const answered = samples.get(`${scenario.name}/${build.name}/answer`);
        if (answered) {
          const [answerWall, answerCpu] = [median(answered.map((run) => run.ms)), median(answered.map((run) => run.cpuMs))];
          Object.assign(row, { [`${build.name}_answer_bytes`]: Buffer.byteLength(runs[0].stdout), [`${build.name}_answer_cpu_ms`]: round(answerCpu), [`${build.name}_vs_answer_cpu_ratio`]: round(cpu / answerCpu), [`${build.name}_vs_answer_ratio`]: round(wall / answerWall) });
        }
      }
      report.push(row);
      console.error(JSON.stringify(row));
    }
  }
  console.log(JSON.stringify({ runs: RUNS, builds, load: os.loadavg().map(round), rows: report }, null, 2));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
