// `npm run bench:server` (also the last part of `npm run bench`): a real `taskdag server run` on
// 127.0.0.1, N concurrent agents over keep-alive HTTP running a mix of add-task, take, submit,
// accept and status, on a 1k and a 50k-node project. Reports durable mutations per second and
// p50/p99 latency at 1, 8, 32 and 128 agents, how long the server's event loop was held up
// (p99 and max of perf_hooks' monitorEventLoopDelay over each step) and how long its ledger
// fsyncs took (p50, p99) and the checkpoints it wrote (all three measured inside the server by
// bench/server-probe.cjs), and the machine's load average as each step opened and closed, next to
// this machine's single-stream append+fsync rate measured in the same run (the ceiling a server
// without group commit cannot pass).
// Writes bench/results/server.{json,md} and server-chart.svg. Options: --seconds N per step
// (default 3), --quick (1k only), --sizes 1k,50k and --agents 1,8,32,128 (the steps to run),
// --runs N (the whole bench N times, each with fresh projects and a fresh server: every figure of a
// step is reported as its median over the runs, each run kept in the JSON's each_run),
// --all-stale (keep every generated claim's date: see liveTeamClaims), --publish (also copies the
// chart to docs/server-bench-chart.svg), --identities bound (every request's agents checked
// against a credential, docs/operating.md section 8; results in bench/results/server-bound.*),
// --request-ids (every mutation carries an Idempotency-Key, as a linked checkout sends it, and the
// server commits it with its answer: docs/remote.md; results in bench/results/server-ids.*),
// --server-root <checkout> (the server, and the file store that writes the bench's projects, are
// that built checkout's, an older revision's say, driven by this script: two builds compared under
// one load; results in bench/results/server-at-<checkout's folder name>.*).
import { closeSync, existsSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { buildState } from './generate.mjs';
import { agentLoad, call, cpuMsOf, ledgerRecords, liveTeamClaims, runTaskdag, startServer } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string', default: '1k,50k' },
    agents: { type: 'string', default: '1,8,32,128' },
    'all-stale': { type: 'boolean', default: false },
    publish: { type: 'boolean', default: false },
    identities: { type: 'string', default: 'shared' },
    'request-ids': { type: 'boolean', default: false },
    runs: { type: 'string', default: '1' },
    'server-root': { type: 'string' },
  },
});
// The checkout whose server and file store are measured: this one unless --server-root names another.
const SERVER_ROOT = path.resolve(options['server-root'] ?? ROOT);
const SERVER_BINARY = path.join(SERVER_ROOT, 'dist', 'taskdag.js');
if (!['shared', 'bound'].includes(options.identities)) throw new Error(`--identities: ${options.identities} is not shared or bound`);
const RESULTS_OF_THIS_BUILD = options.identities === 'bound' ? 'server-bound' : options['request-ids'] ? 'server-ids' : 'server';
const RESULTS = SERVER_ROOT === ROOT ? RESULTS_OF_THIS_BUILD : `${RESULTS_OF_THIS_BUILD}-at-${path.basename(SERVER_ROOT)}`;
const SECONDS = Number(options.seconds);
const RUNS = Number(options.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs: ${options.runs} is not a whole number of runs`);
const AGENTS = options.agents.split(',').map(Number);
const SIZE_NODES = { '1k': 1_000, '50k': 50_000 };
const SIZES = (options.quick ? ['1k'] : options.sizes.split(',')).map((name) => {
  if (!(name in SIZE_NODES)) throw new Error(`--sizes: ${name} is not one of ${Object.keys(SIZE_NODES).join(', ')}`);
  return { name, size: SIZE_NODES[name] };
});
const log = (message) => process.stderr.write(`[bench:server] ${message}\n`);
// The measured checkout's own store writes the projects, in the formats its server reads.
const { FsProjectStore } = require(path.join(SERVER_ROOT, 'build', 'adapters', 'fs-project-store.js'));
const { stateDirectoryLock } = require(path.join(SERVER_ROOT, 'build', 'adapters', 'flock-project-lock.js'));
if (SERVER_ROOT !== ROOT) log(`server and file store: ${SERVER_ROOT}`);

const runs = [];
for (let run = 1; run <= RUNS; run++) {
  if (RUNS > 1) log(`run ${run} of ${RUNS}`);
  runs.push(await benchRun());
}
// One run's figures as they are; several runs' per step as their medians (each run kept in `runs`).
const report = {
  machine: { cpus: os.cpus().length, load: os.loadavg() },
  server: path.relative(ROOT, SERVER_ROOT) || '.',
  identities: options.identities,
  seconds_per_step: SECONDS,
  claims: options['all-stale'] ? 'all stale' : 'live team',
  runs: runs.length,
  fsync_per_second: median(runs.map((run) => run.fsync_per_second)),
  steps: runs[0].steps.map((first) => medianStep(runs.map((run) => run.steps.find((step) => step.project === first.project && step.agents === first.agents)))),
  ...(runs.length > 1 ? { each_run: runs } : {}),
};
mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench', 'results', `${RESULTS}.json`), JSON.stringify(report, null, 2) + '\n');
writeFileSync(path.join(ROOT, 'bench', 'results', `${RESULTS}.md`), markdown(report));
writeFileSync(path.join(ROOT, 'bench', 'results', `${RESULTS}-chart.svg`), chart(report));
if (options.publish) writeFileSync(path.join(ROOT, 'docs', 'server-bench-chart.svg'), chart(report));
process.stdout.write(markdown(report));

/**
 * One run: fresh projects in a fresh root, a fresh server, then each size's steps. Its single-stream
 * fsync rate and its steps, each with the load average as its window opened and closed.
 */
async function benchRun() {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-server-bench-'));
  const result = { fsync_per_second: 0, steps: [] };
  let server = null;
  try {
    const root = path.join(scratch, 'srv');
    runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0', '--identities', options.identities], { binary: SERVER_BINARY });
    const env = Object.fromEntries(readFileSync(path.join(root, 'server.env'), 'utf8').split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const dataRoot = path.join(root, 'data');
    for (const { name, size } of SIZES) {
      const { state } = buildState({ size, logEntries: 100, poolSize: 10 });
      if (!options['all-stale']) liveTeamClaims(state, Date.now());
      const location = path.join(dataRoot, 'projects', `bench-${name}`);
      await new FsProjectStore(`bench-${name}`, location, stateDirectoryLock(location)).replace(state);
      log(`project ${name}: ${Object.keys(state.nodes).length} nodes, claims: ${options['all-stale'] ? 'all stale' : 'live team'}`);
    }
    result.fsync_per_second = fsyncRate(dataRoot);
    log(`single-stream append+fsync: ${result.fsync_per_second}/s`);
    const probe = serverProbe(path.join(scratch, 'probe.json'));
    server = await startServer(path.join(root, 'server.json'), { ...env, BENCH_PROBE_FILE: probe.file }, ['--require', path.join(ROOT, 'bench', 'server-probe.cjs')], SERVER_BINARY);
    const password = options.identities === 'bound' ? benchCredential(root) : env.TASKDAG_SERVER_PASSWORD;
    const bearer = (await call(server.port, null, 'POST', '/v1/auth/login', { password })).body.bearer;
    for (const { name } of SIZES) {
      const initiative = (await call(server.port, bearer, 'POST', `/v1/projects/bench-${name}/ops/initiatives`, { args: {}, agent: null })).body.initiatives[0].name;
      await warmUp(server.port, bearer, `bench-${name}`, initiative);
      for (const agents of AGENTS) {
        // The window's opening and closing each ask the server for what it measured since the last ask.
        const count = () => ({ appends: ledgerRecords(path.join(dataRoot, 'projects', `bench-${name}`)), cpuMs: cpuMsOf(server.pid), probeAsks: probe.ask(server) });
        const loadBefore = loadAverage();
        const { counted, mutations, sent: _sent, ...step } = await agentLoad({ ports: [server.port], bearer, project: `bench-${name}`, initiative, agents, seconds: SECONDS, count, requestIds: options['request-ids'] });
        const perMutation = { mutations_per_append: Math.round((mutations / counted.appends) * 10) / 10, server_cpu_us_per_mutation: Math.round((counted.cpuMs * 1_000) / mutations) };
        const probed = await probe.answer();
        const measured = { loop_delay_p99_ms: probed.p99_ms, loop_delay_max_ms: probed.max_ms, fsync_p50_ms: probed.fsync_p50_ms, fsync_p99_ms: probed.fsync_p99_ms, checkpoints: probed.checkpoints, load_average: [loadBefore, loadAverage()] };
        result.steps.push({ project: name, agents, ...step, ...perMutation, ...measured });
        log(`${name} × ${agents} agents: ${step.mutations_per_second} durable mutations/s, ${perMutation.mutations_per_append} a group commit, ${perMutation.server_cpu_us_per_mutation} µs of server CPU each, p50 ${step.p50_ms} ms, p99 ${step.p99_ms} ms, event loop delay p99 ${measured.loop_delay_p99_ms} ms, max ${measured.loop_delay_max_ms} ms, ledger fsync p50 ${measured.fsync_p50_ms} ms, p99 ${measured.fsync_p99_ms} ms, ${measured.checkpoints} checkpoint(s) written, load average ${measured.load_average.join(' to ')}`);
      }
    }
  } finally {
    // A profiled server (BENCH_SERVER_NODE_ARGS="--cpu-prof") must exit cleanly to write its profile.
    if (server && process.env.BENCH_SERVER_NODE_ARGS) {
      server.kill('SIGINT');
      await new Promise((resolve) => server.once('exit', resolve));
    } else {
      server?.kill('SIGKILL');
    }
    rmSync(scratch, { recursive: true, force: true });
  }
  return result;
}

/**
 * A server runs warm: the first step is not to time the compiler's first passes over the code.
 * Warmed by work done, not by time: 2 s make about 8,000 mutations on a quiet machine, but a few
 * hundred at a load average of 40, and then the first step (1k) spent twice the CPU a mutation of
 * the 50k step after it. Passes of 2 s until 5,000 mutations are done, or 30 s have passed.
 */
async function warmUp(port, bearer, project, initiative) {
  const started = performance.now();
  for (let pass = 0, done = 0; done < 5_000 && performance.now() - started < 30_000; pass++) {
    done += (await agentLoad({ ports: [port], bearer, project, initiative, agents: 8, seconds: 2, idPrefix: `T-warm-up-${pass}` })).mutations;
  }
}

/** The machine's load average over the last minute, as it is now. */
function loadAverage() {
  return Math.round(os.loadavg()[0] * 10) / 10;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round(((sorted[middle - 1] + sorted[middle]) / 2) * 10) / 10;
}

/** The median of every figure of one step over the runs (each figure on its own, so not one run's row). */
function medianStep(steps) {
  const figures = Object.keys(steps[0]).filter((key) => typeof steps[0][key] === 'number' && key !== 'agents');
  const load = [median(steps.map((step) => step.load_average[0])), median(steps.map((step) => step.load_average[1]))];
  return { project: steps[0].project, agents: steps[0].agents, ...Object.fromEntries(figures.map((key) => [key, median(steps.map((step) => step[key]))])), load_average: load };
}

/** A bound server's credential for every agent the load runs as (agent-N and the reviewer): its secret. */
function benchCredential(root) {
  const agents = [...Array.from({ length: Math.max(...AGENTS, 8) }, (_, index) => `agent-${index}`), 'reviewer'];
  const issued = runTaskdag(['server', 'credential', 'add', 'bench', '--agents', agents.join(','), '--config', path.join(root, 'server.json')], { binary: SERVER_BINARY });
  return readFileSync(issued.secret_file, 'utf8').trim();
}

/**
 * What the server measured over a window (bench/server-probe.cjs: its event-loop delay and its
 * ledger fsyncs): `ask` signals the server, which writes what it measured since its last signal
 * and starts afresh; `answer` waits for the report of the latest ask (the server handles the
 * signal on the loop it measures).
 */
function serverProbe(file) {
  let asked = 0;
  return {
    file,
    ask(child) {
      child.kill('SIGUSR2');
      asked += 1;
      return asked;
    },
    async answer() {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        const report = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
        if (report?.sequence === asked) return report;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('the server did not report what it measured');
    },
  };
}

/** How many 200-byte appends, each made durable with fdatasync, one writer manages in a second. */
function fsyncRate(dir) {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const line = Buffer.alloc(200, 'x');
  let count = 0;
  const end = performance.now() + 1_000;
  while (performance.now() < end) {
    writeSync(fd, line);
    fdatasyncSync(fd);
    count += 1;
  }
  closeSync(fd);
  rmSync(file);
  return count;
}

function markdown(result) {
  const rows = result.steps.map((step) => `| ${step.project} | ${step.agents} | ${step.mutations_per_second} | ${(step.mutations_per_second / result.fsync_per_second).toFixed(2)}× | ${step.mutations_per_append} | ${step.server_cpu_us_per_mutation} | ${step.p50_ms} | ${step.p99_ms} | ${step.loop_delay_p99_ms} | ${step.loop_delay_max_ms} | ${step.fsync_p50_ms} | ${step.fsync_p99_ms} | ${step.checkpoints} | ${step.load_average.join(' to ')} |`);
  const runs = result.runs > 1 ? ` Each figure is the median of ${result.runs} runs.` : '';
  return [
    `Single-stream append+fdatasync on this machine, same run: **${result.fsync_per_second}/s**. Claims: ${result.claims}.${runs}`,
    '',
    '| project | agents | durable mutations/s | × single-stream fsync | mutations a commit (fsync) | server CPU µs a mutation | p50 ms | p99 ms | loop delay p99 ms | loop delay max ms | ledger fsync p50 ms | ledger fsync p99 ms | checkpoints written | load average |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}

/** Durable mutations per second by agents, one bar per project, and the single-stream fsync rate as a line. */
function chart(result) {
  const width = 640;
  const height = 320;
  const left = 70;
  const bottom = 40;
  const top = 30;
  const projects = [...new Set(result.steps.map((step) => step.project))];
  const max = Math.max(result.fsync_per_second, ...result.steps.map((step) => step.mutations_per_second)) * 1.1;
  const y = (value) => top + (height - top - bottom) * (1 - value / max);
  const group = (width - left - 20) / AGENTS.length;
  const bar = (group - 20) / projects.length;
  const colours = ['#3b82f6', '#f59e0b', '#10b981'];
  const bars = result.steps.map((step) => {
    const x = left + AGENTS.indexOf(step.agents) * group + 10 + projects.indexOf(step.project) * bar;
    return `<rect x="${x.toFixed(1)}" y="${y(step.mutations_per_second).toFixed(1)}" width="${(bar - 4).toFixed(1)}" height="${(y(0) - y(step.mutations_per_second)).toFixed(1)}" fill="${colours[projects.indexOf(step.project)]}"><title>${step.project}, ${step.agents} agents: ${step.mutations_per_second}/s</title></rect>`;
  });
  const labels = AGENTS.map((agents, index) => `<text x="${(left + index * group + group / 2).toFixed(1)}" y="${height - bottom + 18}" text-anchor="middle">${agents} agents</text>`);
  const legend = projects.map((project, index) => `<rect x="${left + index * 90}" y="6" width="12" height="12" fill="${colours[index]}"/><text x="${left + index * 90 + 16}" y="17">${project} nodes</text>`);
  const ceiling = `<line x1="${left}" x2="${width - 20}" y1="${y(result.fsync_per_second).toFixed(1)}" y2="${y(result.fsync_per_second).toFixed(1)}" stroke="#ef4444" stroke-dasharray="4 3"/><text x="${width - 22}" y="${(y(result.fsync_per_second) - 4).toFixed(1)}" text-anchor="end" fill="#ef4444">single-stream append+fsync ${result.fsync_per_second}/s</text>`;
  const axis = [0, 0.25, 0.5, 0.75, 1].map((share) => `<text x="${left - 6}" y="${(y(max * share) + 4).toFixed(1)}" text-anchor="end">${Math.round(max * share)}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>${legend.join('')}${axis.join('')}<text x="14" y="${height / 2}" transform="rotate(-90 14 ${height / 2})" text-anchor="middle">durable mutations/s</text>${bars.join('')}${ceiling}${labels.join('')}</svg>\n`;
}
