// `npm run bench:scale-out`: 1, 2 and 4 real `taskdag server run` processes on one PostgreSQL
// database (a private cluster started here, as the tests start theirs, fsync and synchronous
// commit on), and next to them one server on the file store, all in the same run. N agents over
// keep-alive HTTP on 127.0.0.1, spread evenly over the processes, each looping add-task, take,
// submit, accept (four durable mutations) and a status read, on a 1k-node project. Reports
// durable mutations per second and p50/p99 latency per request at 32 and 128 agents. Writes
// bench/results/scale-out.{json,md}. Options: --seconds N per step (default 3), --only
// files-1,postgresql-2 (some setups), --agents 32 (some agent counts), --nodes 1000,10000
// (project sizes, each a table of its own; default 1000);
// BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every server process.
// The load generator, the servers and PostgreSQL share this machine's cores: read the figures
// as ratios within one run (BENCHMARKS.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { buildState } from './generate.mjs';
import { agentLoad, call, envFileOf, runTaskdag, startServer } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { FsProjectStore } = require('../build/adapters/fs-project-store.js');
const { stateDirectoryLock } = require('../build/adapters/flock-project-lock.js');
const { openPool } = require('../build/adapters/postgres/pg-pool.js');
const { migrate } = require('../build/adapters/postgres/pg-schema.js');
const { PgProjectStoreFactory } = require('../build/adapters/postgres/pg-project-store.js');
const { freshDatabase } = require('../build/test/support/postgres.js');

const { values: options } = parseArgs({ options: { seconds: { type: 'string', default: '3' }, only: { type: 'string' }, agents: { type: 'string' }, nodes: { type: 'string', default: '1000' } } });
const SECONDS = Number(options.seconds);
const AGENTS = options.agents ? options.agents.split(',').map(Number) : [32, 128];
const SETUPS = [
  { store: 'files', processes: 1 },
  { store: 'postgresql', processes: 1 },
  { store: 'postgresql', processes: 2 },
  { store: 'postgresql', processes: 4 },
].filter(({ store, processes }) => !options.only || options.only.split(',').includes(`${store}-${processes}`));
const SIZES = options.nodes.split(',').map(Number);
const log = (message) => process.stderr.write(`[bench:scale-out] ${message}\n`);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-scale-out-'));
const report = { machine: { cpus: os.cpus().length, load: os.loadavg() }, seconds_per_step: SECONDS, sizes: SIZES, steps: [] };
let servers = [];
try {
  for (const nodes of SIZES) {
    for (const setup of SETUPS) {
      for (const agents of AGENTS) {
        servers = await startSetup(setup, nodes, `${nodes}-${setup.store}-${setup.processes}-${agents}`);
        const bearer = (await call(servers[0].port, null, 'POST', '/v1/auth/login', { password: servers.password })).body.bearer;
        const step = await loadStep(servers, bearer, 'bench', agents);
        report.steps.push({ nodes, ...setup, agents, ...step });
        log(`${nodes} nodes, ${setup.store} × ${setup.processes} process(es), ${agents} agents: ${step.mutations_per_second} durable mutations/s, p50 ${step.p50_ms} ms, p99 ${step.p99_ms} ms`);
        await stopAll(servers);
        servers = [];
      }
    }
  }
} finally {
  await stopAll(servers);
  rmSync(scratch, { recursive: true, force: true });
}
mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench', 'results', 'scale-out.json'), JSON.stringify(report, null, 2) + '\n');
writeFileSync(path.join(ROOT, 'bench', 'results', 'scale-out.md'), markdown(report));
process.stdout.write(markdown(report));
// The private cluster is stopped by the exit hook of test/support/postgres.js.
process.exit(0);

/** A fresh setup: its project seeded with `nodes` nodes, then its server processes, each with its own root (state home and lock). */
async function startSetup({ store, processes }, nodes, name) {
  const { state } = buildState({ size: nodes, logEntries: 100, poolSize: 10 });
  const roots = Array.from({ length: processes }, (_, index) => path.join(scratch, `${name}-${index}`));
  const flags = store === 'postgresql' ? ['--store', 'postgresql'] : [];
  for (const root of roots) runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0', ...flags]);
  const env = envFileOf(path.join(roots[0], 'server.env'));
  if (store === 'postgresql') {
    env.TASKDAG_DATABASE_URL = freshDatabase();
    const pool = openPool(env.TASKDAG_DATABASE_URL);
    await migrate(pool);
    await new PgProjectStoreFactory(pool).open('bench').replace(state);
    await pool.end();
  } else {
    const location = path.join(roots[0], 'data', 'projects', 'bench');
    await new FsProjectStore('bench', location, stateDirectoryLock(location)).replace(state);
  }
  const started = await Promise.all(roots.map((root) => startServer(path.join(root, 'server.json'), env)));
  started.password = env.TASKDAG_SERVER_PASSWORD;
  return started;
}

async function stopAll(children) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.removeAllListeners('exit');
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** The agent workload (server-driver.mjs), agent i on process i mod P. */
async function loadStep(children, bearer, project, agents) {
  const initiative = (await call(children[0].port, bearer, 'POST', `/v1/projects/${project}/ops/initiatives`, { args: {}, agent: null })).body.initiatives[0].name;
  return agentLoad({ ports: children.map((child) => child.port), bearer, project, initiative, agents, seconds: SECONDS });
}

function markdown(result) {
  const files = Object.fromEntries(result.steps.filter((step) => step.store === 'files').map((step) => [`${step.nodes}-${step.agents}`, step.mutations_per_second]));
  const rows = result.steps.map((step) => {
    const baseline = files[`${step.nodes}-${step.agents}`];
    return `| ${step.nodes} | ${step.store} | ${step.processes} | ${step.agents} | ${step.mutations_per_second} | ${baseline ? `${(step.mutations_per_second / baseline).toFixed(2)}×` : '-'} | ${step.p50_ms} | ${step.p99_ms} |`;
  });
  return [
    `${result.seconds_per_step} s per step, ${result.machine.cpus} cores shared by the load generator, the servers and PostgreSQL.`,
    '',
    '| nodes | store | processes | agents | durable mutations/s | × files, same size and agents | p50 ms | p99 ms |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}
