// `npm run bench:scale-out`: 1, 2 and 4 real `taskdag server run` processes on one PostgreSQL
// database (a private cluster started here, as the tests start theirs, fsync and synchronous
// commit on), and next to them one server on the file store, all in the same run. N agents over
// keep-alive HTTP on 127.0.0.1, each looping add-task, take, submit, accept (four durable
// mutations) and a status read, on one project or on several (agent i on project i mod M; each
// project's agents spread over the processes, bench/server-driver.mjs). Reports per step durable
// mutations per second, p50/p99 latency per request, and what does not depend on this machine's
// core count: server CPU per mutation (every server process), database CPU per mutation (every
// process of the cluster), mutations per commit, and database statements (each a round trip) per
// commit and per mutation, counted by pg_stat_statements. Writes bench/results/scale-out.{json,md}.
// Options: --seconds N per step (default 3), --rounds N (every step runs once a round, rounds one
// after the other, so each files step has its PostgreSQL steps beside it; with more than one, a
// table gives each setup's rate over files round by round and the median: the figure to read on a
// machine where one step swings by a third between identical runs; default 1), --only files-1,postgresql-2 (some setups),
// --agents 32 (some agent counts; default 32,128), --nodes 1000,10000 (project sizes; default
// 1000), --projects 1,16 (projects per setup; default 1), --route owner (every agent of a
// project on its owning process, as an owner-aware balancer would send them, so nothing is
// forwarded; default spread), --route follow (spread, and each agent then sends to the owner its
// answers name in X-Taskdag-Owner, as a client that follows the hint does), --baseline DIR
// (another build's root, main before a change say: each setup runs on that build, then on this
// one, in interleaved pairs; the rows say which), --per-process (the project and agent counts are
// per process: 4 processes get four times as many of each, so each process has the same load
// whatever their number; a process's CPU a mutation depends on how many requests it has at once). Each step also reports the share of mutations
// sent to a process that does not own their project (each forwarded to the owner), and the CPU
// of each server process per mutation of the step;
// BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every server process;
// --cpu-prof-dir DIR profiles them too, each step's in DIR/<step> beside a window.json that says
// when the step's window opened and closed (µs of the monotonic clock the profiles' samples are
// timed by): `node bench/cpu-profile.mjs DIR/<step>` gives self time by function in the window.
// --rate N: the agents offer N mutations a second in all (with --per-process, N per process), the same in every step
// (--rate-per-process: N per process with the projects and agents unchanged, so that under callgrind every process
// runs as many requests in the window and is as warm whatever their number, on the same projects), after
// --warm-up S seconds as fast as the servers answer (default 0.5), and until each process was sent
// --warm-up-mutations N (V8 compiles a process's hot code after so many calls: without it, a
// process of four has had a quarter of the warm-up and compiles in the window); a step whose processes did not
// keep up says so (`kept_up`), and every step says how many mutations each process was sent in the warm-up and in the window. --callgrind (with --rate): every server process
// runs under `valgrind --tool=callgrind --instr-atstart=no`, instrumentation is turned on after
// the warm-up, and the instructions of every process in the window (`callgrind_control -z` as it
// opens, `-d` as it closes) are divided by the window's durable mutations: a figure that does not
// depend on how the processes share the machine's cores. After the window the agents stop and
// the instructions of each idle process over --idle-seconds (default 10) are counted too. Under
// valgrind a process runs 5-50 times slower, so --callgrind sets the owner lease to 60 s
// (TASKDAG_SERVER_OWNER_LEASE_MS) and the headers and request timeouts to 120 and 600 s
// (TASKDAG_SERVER_HEADERS_TIMEOUT_MS, TASKDAG_SERVER_REQUEST_TIMEOUT_MS), and every step reports the takeovers in its window (each raises
// a project's fence), which must be none. --callgrind-dir DIR keeps every dump there (the first
// `<process>.callgrind.1` is the window, `.2` the idle stretch; DIR is made if missing).
// Every step also says which process owns each project (`owners`), and where the window's wall
// time went (`time`): each server process's main thread running, waiting for a core (runnable,
// the run queue) and sleeping (its event loop idle), the kernel's share of the servers' CPU and
// their main threads' context switches a mutation, the same for the load generator (this
// process), the database's processes, the machine's busy cores (whoever ran) and CPU pressure
// (the share of the window some task waited for a core). --wait-events samples, every 20 ms of
// the window, what the step's active database backends wait on (pg_stat_activity).
// --cpu-per-process none,0.2 (shares of a core; `none` uncapped; default none): each setup runs
// once per value, each server process capped at that share of a core by a CPU cgroup quota of its
// own (bench/cpu-cap.mjs; cgroup v2 or v1, root only; --cpu-period-us, default 100000), put in as
// it listens, before the warm-up: the cap, not the machine, then limits each process, a stand-in
// for a machine with one slower core per process, as long as the caps, PostgreSQL and the load
// generator together stay under the machine's cores. On a machine others share, their work
// would still take cores from the bench: with the option, every server process (capped or not),
// and the database cluster with the load generator (one group), also weigh --cpu-weight times
// the default (default 10) against the rest of the machine. A capped step also reports its processes'
// CPU a mutation by the groups' own accounting, the share of quota periods in which they were
// throttled (near 1: the cap is what limits them), each group's CPU a second with no request over
// --idle-seconds after the window (what a process does whatever its load), and its rate over the
// 1-process step's.
// The load generator, the servers and PostgreSQL share this machine's cores: read the rates as
// ratios within one run (BENCHMARKS.md).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { buildState } from './generate.mjs';
import { median } from './measure.mjs';
import { openCpuCaps, quotaOf } from './cpu-cap.mjs';
import { agentLoad, call, childrenCpuMsOf, childrenOf, contextSwitchesOf, cpuMsOf, cpuPressureMs, systemCpuMsOf, envFileOf, ledgerRecords, liveTeamClaims, machineCpuMs, runTaskdag, schedMsOf, startServer } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** A build's own stores, so each build's projects are seeded in the format that build reads. */
function storesOf(root) {
  const requireFrom = createRequire(path.join(root, 'package.json'));
  return {
    FsProjectStore: requireFrom('./build/adapters/fs-project-store.js').FsProjectStore,
    stateDirectoryLock: requireFrom('./build/adapters/flock-project-lock.js').stateDirectoryLock,
    openPool: requireFrom('./build/adapters/postgres/pg-pool.js').openPool,
    migrate: requireFrom('./build/adapters/postgres/pg-schema.js').migrate,
    PgProjectStoreFactory: requireFrom('./build/adapters/postgres/pg-project-store.js').PgProjectStoreFactory,
  };
}
const { privateCluster } = require('../build/test/support/postgres.js');

const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    only: { type: 'string' },
    agents: { type: 'string' },
    nodes: { type: 'string', default: '1000' },
    projects: { type: 'string', default: '1' },
    route: { type: 'string', default: 'spread' },
    baseline: { type: 'string' },
    'per-process': { type: 'boolean', default: false },
    'rate-per-process': { type: 'boolean', default: false },
    rate: { type: 'string' },
    'warm-up': { type: 'string', default: '0.5' },
    'warm-up-mutations': { type: 'string', default: '0' },
    callgrind: { type: 'boolean', default: false },
    'idle-seconds': { type: 'string', default: '10' },
    'callgrind-dir': { type: 'string' },
    'wait-events': { type: 'boolean', default: false },
    'cpu-per-process': { type: 'string', default: 'none' },
    'cpu-period-us': { type: 'string', default: '100000' },
    'cpu-weight': { type: 'string', default: '10' },
    'cpu-prof-dir': { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});
// Kept after the run: made here, so a directory that does not exist yet is no reason to fail a long run at its first dump.
if (options['callgrind-dir']) mkdirSync(path.resolve(options['callgrind-dir']), { recursive: true });
const RATE = options.rate ? Number(options.rate) : undefined;
if (options.callgrind && !RATE) throw new Error('--callgrind needs --rate: instructions a mutation are compared at one offered load');
/**
 * Under valgrind the lease must outlast a slow renewal, or the processes would take each other's
 * projects over, and a request may wait past the usual 10 s for its headers to be read.
 */
const CALLGRIND_SETTINGS = { TASKDAG_SERVER_OWNER_LEASE_MS: '60000', TASKDAG_SERVER_HEADERS_TIMEOUT_MS: '120000', TASKDAG_SERVER_REQUEST_TIMEOUT_MS: '600000' };
/** After instrumentation is turned on, valgrind translates the code again: not part of the window. */
const CALLGRIND_SETTLE_MS = 5_000;
const run = promisify(execFile);
if (!['spread', 'owner', 'follow'].includes(options.route)) throw new Error(`--route: ${options.route} is not spread, owner or follow`);
/** The builds each setup runs on, one after the other: this one last. */
const BUILDS = [...(options.baseline ? [{ build: 'before', root: path.resolve(options.baseline) }] : []), { build: options.baseline ? 'after' : 'this', root: ROOT }];
const SECONDS = Number(options.seconds);
const ROUNDS = Number(options.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: ${options.rounds} is not a whole number of rounds from 1`);
const AGENTS = options.agents ? options.agents.split(',').map(Number) : [32, 128];
const SETUPS = [
  { store: 'files', processes: 1 },
  { store: 'postgresql', processes: 1 },
  { store: 'postgresql', processes: 2 },
  { store: 'postgresql', processes: 4 },
].filter(({ store, processes }) => !options.only || options.only.split(',').includes(`${store}-${processes}`));
const SIZES = options.nodes.split(',').map(Number);
/** Each server process's share of a core, by step (null: uncapped); checked before anything starts. */
const CAPS = options['cpu-per-process'].split(',').map((value) => (value === 'none' ? null : Number(value)));
const CPU_PERIOD_US = Number(options['cpu-period-us']);
for (const share of CAPS) if (share !== null) quotaOf(share, CPU_PERIOD_US);
const CPU_WEIGHT = Number(options['cpu-weight']);
const caps = CAPS.some((share) => share !== null) ? openCpuCaps({ periodUs: CPU_PERIOD_US }) : null;
const PROJECT_COUNTS = options.projects.split(',').map(Number);
const log = (message) => process.stderr.write(`[bench:scale-out] ${message}\n`);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-scale-out-'));
// pg_stat_statements counts every statement the servers send, each one round trip.
const cluster = SETUPS.some(({ store }) => store === 'postgresql') ? privateCluster(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.max=1000']) : null;
const report = { machine: { cpus: os.cpus().length, load: [os.loadavg()] }, seconds_per_step: SECONDS, rounds: ROUNDS, route: options.route, per_process: options['per-process'], rate_per_process: options['rate-per-process'], rate: RATE ?? null, callgrind: options.callgrind, sizes: SIZES, steps: [] };
// The database cluster (its postmaster's backends are born in its group) and this process, the load generator, weigh as much as the servers.
if (caps && cluster) caps.confine([process.pid, postmasterPid(), ...childrenOf(postmasterPid())], { weight: CPU_WEIGHT });
let servers = [];
let databases = 0;
// A step that fails or is interrupted leaves no server behind (one under valgrind would run on for minutes), no cgroup and no scratch.
process.on('exit', () => {
  servers.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  caps?.releaseAll();
  rmSync(scratch, { recursive: true, force: true });
});
// Interrupted, the exit hooks above and the private cluster's still run.
for (const [signal, status] of [['SIGINT', 130], ['SIGTERM', 143]]) process.once(signal, () => process.exit(status));
/** The text of each statement pg_stat_statements counted, by `statement:<queryid>`. */
const statementTexts = new Map();
try {
  for (let round = 1; round <= ROUNDS; round++) {
  for (const nodes of SIZES) {
    for (const projectsEach of PROJECT_COUNTS) {
      for (const cpuPerProcess of CAPS) {
      for (const setup of SETUPS) {
        for (const agentsEach of AGENTS) {
          const [projects, agents] = options['per-process'] ? [projectsEach * setup.processes, agentsEach * setup.processes] : [projectsEach, agentsEach];
          for (const { build, root } of BUILDS) {
            const started = await startSetup(setup, nodes, projects, `${nodes}-${projects}-${setup.store}-${setup.processes}-${agents}-${build}-${cpuPerProcess ?? 'uncapped'}${ROUNDS > 1 ? `-round-${round}` : ''}`, root);
            servers = started.servers;
            // Capped before any request: the warm-up compiles each process's hot code at the rate the cap allows.
            started.groups = caps ? servers.map((child) => caps.confine([child.pid], { share: cpuPerProcess, weight: CPU_WEIGHT })) : null;
            const bearer = (await call(servers[0].port, null, 'POST', '/v1/auth/login', { password: started.password })).body.bearer;
            const step = await loadStep(servers, bearer, started, agents);
            report.steps.push({ round, build, nodes, projects, ...setup, agents, cpu_per_process: cpuPerProcess, ...step });
            report.machine.load.push(os.loadavg());
            log(
              `${ROUNDS > 1 ? `round ${round}: ` : ''}${build} build, ${nodes} nodes × ${projects} project(s), ${setup.store} × ${setup.processes} process(es)${cpuPerProcess === null ? '' : ` capped at ${cpuPerProcess} of a core each`}, ${agents} agents: ${step.mutations_per_second} durable mutations/s, ` +
                `p50 ${step.p50_ms} ms, p99 ${step.p99_ms} ms, server CPU ${step.server_cpu_us_per_mutation} µs/mutation (by process ${step.server_cpu_us_per_mutation_by_process.join(', ')}), forwarded ${step.forwarded_share}, database CPU ${step.database_cpu_us_per_mutation ?? '-'} µs/mutation, ` +
                `${step.mutations_per_commit} mutations/commit, ${step.log_bytes_per_mutation} bytes of change sets a mutation, checkpoint saved in the window: ${step.checkpoint_saved_in_window ? 'yes' : 'no'}, ${step.statements_per_commit ?? '-'} statements/commit, ${step.statements_per_mutation ?? '-'} statements/mutation, load ${os.loadavg()[0].toFixed(1)}` +
                (step.instructions_per_mutation ? `, ${step.instructions_per_mutation} instructions/mutation (by process ${step.instructions_per_mutation_by_process.join(', ')}), ${step.compiler_instructions_per_mutation} of them the optimizing compiler, ${step.major_gc_instructions_per_mutation} full collections, idle ${step.idle_instructions_per_second_by_process.join(', ')} instructions/s, takeovers ${step.takeovers_in_window}, kept up ${step.kept_up}` : '') +
                `, mutations sent by process: warm-up ${step.warm_up_mutations_by_process.join(', ')}, window ${step.window_mutations_by_process.join(', ')}`,
            );
            if (step.capped) log(`  capped: server CPU by the cgroups ${step.capped.server_cpu_us_per_mutation} µs/mutation (by process ${step.capped.server_cpu_us_per_mutation_by_process.join(', ')}), throttled in ${step.capped.throttled_share_by_process.join(', ')} of the quota periods, idle ${step.capped.idle_cpu_us_per_second_by_process.join(', ')} µs/s`);
            log(`  where the window went: ${timeSummary(step)}`);
            await stopAll(servers);
            started.groups?.forEach(caps.release);
            servers = [];
          }
        }
      }
      }
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

/**
 * A fresh setup: `projects` projects (`bench-0`...) seeded with `nodes` nodes each, then its
 * server processes, each with its own root (state home and lock); with PostgreSQL, a database
 * of its own on the bench's cluster.
 */
async function startSetup({ store, processes }, nodes, projects, name, buildRoot) {
  const binary = path.join(buildRoot, 'dist', 'taskdag.js');
  const { FsProjectStore, stateDirectoryLock, openPool, migrate, PgProjectStoreFactory } = storesOf(buildRoot);
  const { state } = buildState({ size: nodes, logEntries: 100, poolSize: 10 });
  // As bench:server does: a live team's claims, so that every status does not list 1,217 stale ones at 50k.
  liveTeamClaims(state, Date.now());
  const ids = Array.from({ length: projects }, (_, index) => `bench-${index}`);
  const roots = Array.from({ length: processes }, (_, index) => path.join(scratch, `${name}-${index}`));
  const flags = store === 'postgresql' ? ['--store', 'postgresql'] : [];
  for (const root of roots) runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0', ...flags], { binary });
  const env = envFileOf(path.join(roots[0], 'server.env'));
  if (options.callgrind) Object.assign(env, CALLGRIND_SETTINGS);
  let database = null;
  if (store === 'postgresql') {
    database = `scale_out_${++databases}`;
    env.TASKDAG_DATABASE_URL = cluster.createDatabase(database);
    cluster.sql(database, 'CREATE EXTENSION pg_stat_statements');
    const pool = openPool(env.TASKDAG_DATABASE_URL);
    await migrate(pool);
    const stores = new PgProjectStoreFactory(pool);
    for (const id of ids) await stores.open(id).replace(state);
    await pool.end();
  } else {
    for (const id of ids) {
      const location = path.join(roots[0], 'data', 'projects', id);
      await new FsProjectStore(id, location, stateDirectoryLock(location)).replace(state);
    }
  }
  // What seeding wrote is flushed before the servers start, on either store: the database's
  // checkpointer and the kernel's writeback would otherwise write it out during the window.
  if (cluster) cluster.sql('postgres', 'CHECKPOINT');
  await run('sync');
  const profiles = options['cpu-prof-dir'] ? path.join(path.resolve(options['cpu-prof-dir']), name) : null;
  if (profiles) mkdirSync(profiles, { recursive: true });
  const nodeArgs = profiles ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [];
  const servers = await Promise.all(roots.map((root) => startServer(path.join(root, 'server.json'), env, nodeArgs, binary, options.callgrind ? callgrindLauncher(root) : [])));
  if (options.callgrind) servers.forEach((server, index) => (server.callgrindOut = callgrindOutOf(roots[index])));
  return { servers, password: env.TASKDAG_SERVER_PASSWORD, ids, database, dataRoot: path.join(roots[0], 'data'), profiles };
}

async function stopAll(children) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.removeAllListeners('exit');
          child.once('exit', resolve);
          // A profiled server (BENCH_SERVER_NODE_ARGS="--cpu-prof") writes its profile on a clean exit.
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** The agent workload (server-driver.mjs) over the setup's projects, with the counters read as its window opens and closes. */
async function loadStep(children, bearer, { ids, database, dataRoot, groups, profiles }, agents) {
  const projects = [];
  for (const [index, project] of ids.entries()) {
    const initiative = (await call(children[0].port, bearer, 'POST', `/v1/projects/${project}/ops/initiatives`, { args: {}, agent: null })).body.initiatives[0].name;
    projects.push({ project, initiative });
    // Before the window every project has its owner (its first mutation decides it) and every
    // process has loaded every project: neither is what a step measures.
    const id = `T-warm-up-${index}`;
    const added = await call(children[index % children.length].port, bearer, 'POST', `/v1/projects/${project}/ops/add-task`, { args: { id, initiative, title: id, body: '', acceptance: 'ok', blocked_by: [] }, agent: 'bench' });
    if (added.status !== 200) throw new Error(`warm-up add-task: ${JSON.stringify(added.body)}`);
    for (const child of children) await call(child.port, bearer, 'POST', `/v1/projects/${project}/ops/status`, { args: { limit: 1 }, agent: null });
  }
  if (options.route === 'owner') {
    const owners = database ? ownersOf(database) : {};
    for (const entry of projects) entry.port = owners[entry.project] ?? children[0].port;
  }
  // With --per-process or --rate-per-process, the offered load is per process too.
  const rate = RATE && (options['per-process'] || options['rate-per-process']) ? RATE * children.length : RATE;
  const cpus = () => ({ ...Object.fromEntries(children.map((child, index) => [`cpu:${index}`, cpuMsOf(child.pid)])), ...(groups ? groupCounts(groups) : {}) });
  // Under callgrind, each process's instructions since the window opened: zero as it opens, the total dumped as it closes.
  let windowOpen = false;
  const instructions = async () => {
    windowOpen = !windowOpen;
    if (!options.callgrind) return {};
    const counts = windowOpen ? await Promise.all(children.map((child) => callgrindZero(child).then(() => ({ total: 0, compiler: 0, majorGc: 0 })))) : await Promise.all(children.map(callgrindDump));
    return Object.fromEntries(counts.flatMap(({ total, compiler, majorGc }, index) => [[`instructions:${index}`, total], [`compiler:${index}`, compiler], [`majorGc:${index}`, majorGc]]));
  };
  const count = database
    ? async () => ({ ...(await instructions()), ...databaseCounts(database), serverCpuMs: serversCpuMs(children), ...cpus(), ...schedCounts(children, database) })
    : async () => ({ ...(await instructions()), commits: ids.reduce((sum, id) => sum + ledgerRecords(path.join(dataRoot, 'projects', id)), 0), ...checkpointFileCounts(ids.map((id) => path.join(dataRoot, 'projects', id))), serverCpuMs: serversCpuMs(children), ...cpus(), ...schedCounts(children, null) });
  // --wait-events: what the database's backends wait on, sampled through the window only.
  let waits = null;
  let waitEvents = null;
  // The window's bounds on the clock a CPU profile's samples are timed by (both CLOCK_MONOTONIC).
  const windowBounds = [];
  const counter = async () => {
    windowBounds.push(Number(process.hrtime.bigint() / 1000n));
    if (waits) waitEvents = await waits.stop();
    const counted = await count();
    if (options['wait-events'] && database && !waits) waits = await sampleWaitEvents(database);
    return counted;
  };
  const settle = options.callgrind
    ? async () => {
        await Promise.all(children.map((child) => run('callgrind_control', ['--instr=on', String(child.pid)])));
        await new Promise((resolve) => setTimeout(resolve, CALLGRIND_SETTLE_MS));
      }
    : undefined;
  const { counted, mutations, sent, warmUpSent, ...step } = await agentLoad({ ports: children.map((child) => child.port), bearer, projects, agents, seconds: SECONDS, count: counter, followOwner: options.route === 'follow', rate, warmUpSeconds: Number(options['warm-up']), warmUpMutations: Number(options['warm-up-mutations']), settle });
  if (profiles) writeFileSync(path.join(profiles, 'window.json'), JSON.stringify({ from_us: windowBounds[0], to_us: windowBounds.at(-1), pids: children.map((child) => child.pid) }) + '\n');
  // The change sets' bytes the window committed (what a checkpoint's threshold counts), read once it is closed.
  if (database) counted.logBytes = windowChangeSetBytes(database, counted.commits);
  const idle = options.callgrind ? await idleInstructionsPerSecond(children) : null;
  const idleCpu = groups && !options.callgrind ? await idleCpuUsPerSecond(groups) : null;
  const per = (value, by, scale = 1) => (value === undefined ? null : Math.round((value * scale * 100) / by) / 100);
  // Owners do not move during a window: a mutation sent elsewhere than its project's owner was forwarded.
  const owners = database ? ownersOf(database) : {};
  const forwarded = Object.entries(sent).reduce((sum, [key, value]) => {
    const [project, port] = key.split(' ');
    return sum + (owners[project] !== undefined && owners[project] !== Number(port) ? value : 0);
  }, 0);
  // What each process was sent: before the window (the warm-up as fast as answered) and in it.
  const byProcess = (counts) => children.map((child) => Object.entries(counts).reduce((sum, [key, value]) => sum + (Number(key.split(' ').at(-1)) === child.port ? value : 0), 0));
  const instructionsOf = (index) => counted[`instructions:${index}`];
  const perMutation = (value) => Math.round(value / mutations);
  const windowInstructions = children.reduce((sum, _, index) => sum + (instructionsOf(index) ?? 0), 0);
  const sumOf = (name) => children.reduce((sum, _, index) => sum + (counted[`${name}:${index}`] ?? 0), 0);
  const compilerInstructions = sumOf('compiler');
  const majorGcInstructions = sumOf('majorGc');
  return {
    ...step,
    mutations,
    offered_per_second: rate ?? null,
    // Within 5% of the offered load: the processes kept up, so every step did the same work.
    kept_up: rate ? step.mutations_per_second >= 0.95 * rate : null,
    takeovers_in_window: database ? counted.fences : null,
    warm_up_mutations_by_process: byProcess(warmUpSent),
    window_mutations_by_process: byProcess(sent),
    owners: database ? ownersByProcess(database, children) : null,
    // Connections opened to the database in the window (each a backend forked, its statements prepared again), a second.
    database_sessions_per_second: database ? Math.round((counted.sessions * 10) / SECONDS) / 10 : null,
    time: timeShares({ ...counted, mutations }, children, database),
    ...(waitEvents ? { wait_events: waitEvents } : {}),
    ...(options.callgrind
      ? {
          instructions_per_mutation: perMutation(windowInstructions),
          instructions_per_mutation_by_process: children.map((_, index) => perMutation(instructionsOf(index))),
          compiler_instructions_per_mutation: perMutation(compilerInstructions),
          major_gc_instructions_per_mutation: perMutation(majorGcInstructions),
          // What the requests themselves ran: the window less the optimizing compiler and the full collections.
          request_instructions_per_mutation: perMutation(windowInstructions - compilerInstructions - majorGcInstructions),
          idle_instructions_per_second_by_process: idle,
        }
      : {}),
    commits: counted.commits,
    forwarded_share: per(forwarded, mutations),
    server_cpu_us_per_mutation: Math.round(per(counted.serverCpuMs, mutations, 1_000)),
    server_cpu_us_per_mutation_by_process: children.map((_, index) => Math.round(per(counted[`cpu:${index}`], mutations, 1_000))),
    database_cpu_us_per_mutation: database ? Math.round(per(counted.databaseCpuMs, mutations, 1_000)) : null,
    mutations_per_commit: per(mutations, counted.commits),
    // A checkpoint saved in the window (for PostgreSQL, its manifest committed; for files, renamed in): its encoding and writing are the window's.
    checkpoint_saved_in_window: counted.checkpointRevision > 0 || counted.checkpointMtimeMs > 0,
    log_bytes_per_mutation: Math.round(counted.logBytes / mutations),
    statements_per_commit: database ? per(counted.statements, counted.commits) : null,
    statements_per_mutation: database ? per(counted.statements, mutations) : null,
    statements: database ? statementBreakdown(counted) : null,
    capped: groups ? { ...cappedFigures(counted, groups, mutations), idle_cpu_us_per_second_by_process: idleCpu } : null,
  };
}

/** The CPU each process's group uses a second with no request (its timers, leases and session re-checks), over --idle-seconds after the window. */
async function idleCpuUsPerSecond(groups) {
  const seconds = Number(options['idle-seconds']);
  const before = groups.map((group) => caps.usage(group).cpuUs);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  return groups.map((group, index) => (before[index] === null ? null : Math.round((caps.usage(group).cpuUs - before[index]) / seconds)));
}

/** Each capped process's CPU time by its cgroup's own accounting (µs), and its quota periods, throttled and in all. */
function groupCounts(groups) {
  return Object.fromEntries(
    groups.flatMap((group, index) => {
      const { cpuUs, periods, throttled } = caps.usage(group);
      return [...(cpuUs === null ? [] : [[`groupCpuUs:${index}`, cpuUs]]), [`periods:${index}`, periods], [`throttled:${index}`, throttled]];
    }),
  );
}

/** A capped step's server CPU a mutation by the cgroups (null where v1 has no cpuacct), and how often each process hit its quota. */
function cappedFigures(counted, groups, mutations) {
  const cpuUs = groups.map((_, index) => counted[`groupCpuUs:${index}`]);
  const accounted = !cpuUs.includes(undefined);
  return {
    server_cpu_us_per_mutation: accounted ? Math.round(cpuUs.reduce((sum, value) => sum + value, 0) / mutations) : null,
    server_cpu_us_per_mutation_by_process: cpuUs.map((value) => (accounted ? Math.round(value / mutations) : null)),
    throttled_share_by_process: groups.map((_, index) => Math.round((counted[`throttled:${index}`] * 100) / Math.max(1, counted[`periods:${index}`])) / 100),
  };
}

/** Each project's owning process, by the port it listens on (docs/scaling.md, "Failover"). */
function ownersOf(database) {
  const text = cluster.sql(database, "SELECT coalesce(json_object_agg(o.project, p.address), '{}') FROM taskdag_owners o JOIN taskdag_processes p ON p.id = o.process");
  return Object.fromEntries(Object.entries(JSON.parse(text)).map(([project, address]) => [project, Number(new URL(address).port)]));
}

/** valgrind's callgrind around a server process of `root`, instrumenting nothing until told (`callgrind_control --instr=on`). */
function callgrindLauncher(root) {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--dump-instr=no', `--callgrind-out-file=${callgrindOutOf(root)}`, `--log-file=${callgrindOutOf(root)}.log`];
}

/** Where a process's callgrind counts go: beside its root, or in --callgrind-dir, kept after the run (for callgrind_annotate). */
function callgrindOutOf(root) {
  return options['callgrind-dir'] ? path.join(path.resolve(options['callgrind-dir']), `${path.basename(root)}.callgrind`) : `${root}.callgrind`;
}

async function callgrindZero(child) {
  await run('callgrind_control', ['--zero', String(child.pid)]);
}

/**
 * Dumps `child`'s counts since the last zero or dump (callgrind writes them to `<out>.<n>`) and
 * returns its instructions, and those V8's optimizing compiler ran on its background threads
 * (inclusive, by callgrind_annotate): each process compiles its own copy of the hot code, once,
 * and the fewer calls a process gets the later it does, so a finite window holds some of it.
 */
async function callgrindDump(child) {
  const file = await callgrindDumpFile(child);
  const totals = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!totals) throw new Error(`no totals line in ${file}`);
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 });
  const inclusive = (name) => {
    const line = new RegExp(`^\\s*([\\d,]+) .*${name}`, 'm').exec(stdout);
    return line ? Number(line[1].replace(/,/g, '')) : 0;
  };
  return {
    total: Number(totals[1]),
    compiler: inclusive('OptimizingCompileDispatcher::CompileTask::RunInternal\\('),
    // A full collection: marking (on helper threads, and in steps on the main one), the pause, and sweeping.
    majorGc: ['ConcurrentMarking::RunMajor\\(', 'IncrementalMarking::Step\\(', 'MarkCompactCollector::CollectGarbage\\(', 'Sweeper::SweeperJob::Run\\('].reduce((sum, name) => sum + inclusive(name), 0),
  };
}

async function callgrindDumpFile(child) {
  await run('callgrind_control', ['--dump', String(child.pid)]);
  const dir = path.dirname(child.callgrindOut);
  const prefix = `${path.basename(child.callgrindOut)}.`;
  const dumps = readdirSync(dir).filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)));
  const newest = dumps.sort((a, b) => Number(b.slice(prefix.length)) - Number(a.slice(prefix.length)))[0];
  return path.join(dir, newest);
}

/** The instructions each process runs a second with no request: its timers and leases. */
async function idleInstructionsPerSecond(children) {
  const seconds = Number(options['idle-seconds']);
  await Promise.all(children.map(callgrindZero));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  const counts = await Promise.all(children.map(callgrindDump));
  return counts.map(({ total }) => Math.round(total / seconds));
}

/**
 * Where the window's wall time went, as counters: each server process's main thread running and
 * waiting for a core, the load generator's (this process) too, with its CPU on every thread, the
 * database's processes (summed), the whole machine's busy CPU, and machine-wide CPU pressure.
 */
function schedCounts(children, database) {
  const counts = { wallMs: performance.now() };
  children.forEach((child, index) => {
    const { running, waiting } = schedMsOf(child.pid);
    counts[`run:${index}`] = running;
    counts[`wait:${index}`] = waiting;
    counts[`sys:${index}`] = systemCpuMsOf(child.pid);
    const switches = contextSwitchesOf(child.pid);
    counts[`voluntary:${index}`] = switches.voluntary;
    counts[`involuntary:${index}`] = switches.involuntary;
  });
  const generator = schedMsOf(process.pid);
  const usage = process.cpuUsage();
  Object.assign(counts, { generatorRun: generator.running, generatorWait: generator.waiting, generatorCpuMs: (usage.user + usage.system) / 1_000 });
  if (database) {
    const postmaster = postmasterPid();
    // By process: one that ended in the window drops out (what it ran there is lost), one that started counts from 0.
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      const sched = schedMsOf(pid);
      counts[`databaseRun:${pid}`] = sched.running;
      counts[`databaseWait:${pid}`] = sched.waiting;
    }
  }
  const machine = machineCpuMs();
  Object.assign(counts, { machineBusyMs: machine.busy, machineTotalMs: machine.total, cpuPressureMs: cpuPressureMs() ?? 0 });
  return counts;
}

/**
 * The window's wall time shared out (each a fraction of the window): by server process, its main
 * thread's running, waiting for a core and sleeping (its event loop idle); the load generator's
 * main thread the same, and its CPU on all threads; the database's processes running and waiting
 * (in cores: a sum over processes); the machine's cores busy (of all of them, whoever ran) and the
 * share of the window some task waited for a core.
 */
function timeShares(counted, children, database) {
  const wall = counted.wallMs;
  const share = (value) => Math.round((value * 100) / wall) / 100;
  const thread = (running, waiting) => ({ running: share(running), waiting: share(waiting), sleeping: share(Math.max(0, wall - running - waiting)) });
  const perMutation = (name) => (counted.mutations ? Math.round((children.reduce((sum, _, index) => sum + counted[`${name}:${index}`], 0) * 100) / counted.mutations) / 100 : null);
  return {
    server_main_threads: children.map((_, index) => thread(counted[`run:${index}`], counted[`wait:${index}`])),
    server_system_cpu_share: Math.round((children.reduce((sum, _, index) => sum + counted[`sys:${index}`], 0) * 100) / counted.serverCpuMs) / 100,
    server_voluntary_switches_per_mutation: perMutation('voluntary'),
    server_involuntary_switches_per_mutation: perMutation('involuntary'),
    server_cpu_cores: share(counted.serverCpuMs),
    // The main threads' CPU alone (the event loops, where requests run; the rest is V8's compiler and collector threads, and libuv's pool).
    server_main_thread_us_per_mutation: counted.mutations ? Math.round((children.reduce((sum, _, index) => sum + counted[`run:${index}`], 0) * 1_000) / counted.mutations) : null,
    generator_main_thread: thread(counted.generatorRun, counted.generatorWait),
    generator_cpu_cores: share(counted.generatorCpuMs),
    database_cores: database ? { running: share(sumOf(counted, 'databaseRun:')), waiting: share(sumOf(counted, 'databaseWait:')) } : null,
    machine_busy_cores: share(counted.machineBusyMs),
    machine_cores: Math.round(counted.machineTotalMs / wall),
    cpu_pressure: share(counted.cpuPressureMs),
  };
}

/** The sum of the counters whose names start with `prefix`. */
function sumOf(counted, prefix) {
  return Object.entries(counted).reduce((sum, [name, value]) => sum + (name.startsWith(prefix) ? value : 0), 0);
}

/** Which server process (by its index in the step) owns each project, and how many each owns. */
function ownersByProcess(database, children) {
  const owners = ownersOf(database);
  const indexOf = new Map(children.map((child, index) => [child.port, index]));
  const byProject = Object.fromEntries(Object.entries(owners).map(([project, port]) => [project, indexOf.get(port) ?? null]));
  const counts = children.map((_, index) => Object.values(byProject).filter((owner) => owner === index).length);
  return { by_project: byProject, projects_by_process: counts };
}

/**
 * Samples, every 20 ms until `stop`, what the step's database backends are doing
 * (pg_stat_activity: active or idle, and the wait event of an active one), on a connection of
 * the bench's own; `stop` answers each state's share of the samples of active backends, and the
 * mean number of backends active.
 */
async function sampleWaitEvents(database) {
  const pg = createRequire(path.join(ROOT, 'package.json'))('pg');
  // Connected to another database, so pg_stat_statements does not count the samples among the step's statements.
  const client = new pg.Client({ connectionString: cluster.url('postgres') });
  await client.connect();
  const tally = new Map();
  let samples = 0;
  let active = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query(
        "SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS what FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend'",
        [database],
      );
      samples += 1;
      active += rows.length;
      for (const { what } of rows) tally.set(what, (tally.get(what) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      const byWhat = Object.fromEntries([...tally].sort((a, b) => b[1] - a[1]).map(([what, count]) => [what, Math.round((count * 100) / Math.max(1, active)) / 100]));
      return { samples, mean_active_backends: Math.round((active * 100) / Math.max(1, samples)) / 100, share_of_active: byWhat };
    },
  };
}

/** One line of a step's time shares, owners and wait events, for the log. */
function timeSummary(step) {
  const { time } = step;
  const thread = ({ running, waiting, sleeping }) => `${running}/${waiting}/${sleeping}`;
  return (
    `server main threads running/waiting for a core/sleeping ${time.server_main_threads.map(thread).join(', ')}; server CPU ${time.server_cpu_cores} cores, ${time.server_system_cpu_share} of it in the kernel; ` +
    `main threads ${time.server_main_thread_us_per_mutation} µs a mutation; main thread switches a mutation ${time.server_voluntary_switches_per_mutation} voluntary, ${time.server_involuntary_switches_per_mutation} not; ` +
    `load generator main thread ${thread(time.generator_main_thread)}, CPU ${time.generator_cpu_cores} cores; ` +
    (time.database_cores ? `database running ${time.database_cores.running} cores, waiting for a core ${time.database_cores.waiting}; ` : '') +
    `machine busy ${time.machine_busy_cores} of ${time.machine_cores} cores, CPU pressure ${time.cpu_pressure}` +
    (step.owners ? `; projects owned by process ${step.owners.projects_by_process.join(', ')}; database connections opened ${step.database_sessions_per_second}/s` : '') +
    (step.wait_events ? `; database backends active ${step.wait_events.mean_active_backends}, ${JSON.stringify(step.wait_events.share_of_active)}` : '')
  );
}

function postmasterPid() {
  return Number(readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function serversCpuMs(children) {
  return children.reduce((sum, child) => sum + cpuMsOf(child.pid), 0);
}

/**
 * From the database, as the window opens or closes: the change sets committed so far (one row a
 * commit), the statements its clients have sent (but this one's own queries), by statement and
 * in all, and the CPU time the cluster's processes have used.
 */
function databaseCounts(database) {
  const text = cluster.sql(
    database,
    `SELECT json_build_object(
       'commits', (SELECT count(*) FROM taskdag_change_sets),
       'checkpoint_revision', (SELECT coalesce(max(revision), -1) FROM taskdag_checkpoint_manifests),
       'fences', (SELECT coalesce(sum(fence), 0) FROM taskdag_owners),
       'sessions', (SELECT sessions FROM pg_stat_database WHERE datname = current_database()),
       'by_statement', (SELECT coalesce(json_object_agg(queryid, json_build_object('query', query, 'calls', calls)), '{}') FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'))`,
  );
  const { commits, checkpoint_revision: checkpointRevision, fences, sessions, by_statement: byStatement } = JSON.parse(text);
  const calls = Object.fromEntries(Object.entries(byStatement).map(([id, { calls }]) => [`statement:${id}`, calls]));
  for (const [id, { query }] of Object.entries(byStatement)) statementTexts.set(`statement:${id}`, query);
  const postmaster = postmasterPid();
  return { commits, checkpointRevision, fences: Number(fences), sessions: Number(sessions), statements: Object.values(calls).reduce((sum, value) => sum + value, 0), ...calls, databaseCpuMs: childrenCpuMsOf(postmaster) + cpuMsOf(postmaster) };
}

/** The bytes of the newest `commits` change sets, as JSON text (the bytes a PostgreSQL process's checkpoint threshold counts). */
function windowChangeSetBytes(database, commits) {
  return Number(cluster.sql(database, `SELECT coalesce(sum(octet_length(change::text)), 0) FROM (SELECT change FROM taskdag_change_sets ORDER BY revision DESC LIMIT ${commits}) newest`));
}

/** The file store's ledger bytes (every generation) and the checkpoint's modification time, over the projects' directories. */
function checkpointFileCounts(locations) {
  let logBytes = 0;
  let checkpointMtimeMs = 0;
  for (const location of locations) {
    for (const file of readdirSync(location).filter((name) => /^ledger\.\d+\.jsonl$/.test(name))) logBytes += statSync(path.join(location, file)).size;
    checkpointMtimeMs += statSync(path.join(location, 'tasks.json')).mtimeMs;
  }
  return { logBytes, checkpointMtimeMs };
}

/** The statements sent during the window, most frequent first, with how many of each a commit. */
function statementBreakdown(counted) {
  return Object.entries(counted)
    .filter(([name, value]) => name.startsWith('statement:') && value > 0)
    .map(([name, value]) => ({ statement: statementTexts.get(name).replace(/\s+/g, ' ').slice(0, 160), per_commit: Math.round((value * 100) / counted.commits) / 100 }))
    .sort((a, b) => b.per_commit - a.per_commit);
}

/** The step's rate over the files step of the same round, build, size, projects, agents and cap (undefined: none ran). */
function overFiles(result) {
  const keyOf = (step) => `${step.round}-${step.build}-${step.nodes}-${step.projects}-${step.agents}-${step.cpu_per_process}`;
  const files = new Map(result.steps.filter((step) => step.store === 'files').map((step) => [keyOf(step), step.mutations_per_second]));
  return (step) => {
    const baseline = files.get(keyOf(step));
    return baseline ? step.mutations_per_second / baseline : undefined;
  };
}

/**
 * With --rounds: each setup's rate over files, round by round, and their median. One 5 s step
 * swings by a third between identical runs on a shared machine; the median of rounds run in
 * turn (files, then PostgreSQL, of each size, in every round) is the figure to read.
 */
function roundsTable(result) {
  if (result.rounds < 2) return [];
  const ratioOf = overFiles(result);
  const setups = new Map();
  for (const step of result.steps) {
    const key = `${step.build}|${step.nodes}|${step.projects}|${step.store}|${step.processes}|${step.agents}|${step.cpu_per_process ?? 'none'}`;
    if (!setups.has(key)) setups.set(key, []);
    setups.get(key).push(step);
  }
  const rows = [...setups].map(([key, steps]) => {
    const ratios = steps.map(ratioOf).filter((ratio) => ratio !== undefined);
    const spread = ratios.length ? `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '-';
    return `| ${key.split('|').join(' | ')} | ${Math.round(median(steps.map((step) => step.mutations_per_second)))} | ${steps.map((step) => step.mutations_per_second).join(', ')} | ${spread} | ${ratios.map((ratio) => ratio.toFixed(2)).join(', ') || '-'} |`;
  });
  return [
    `Over ${result.rounds} rounds (each round runs every step once, in order):`,
    '',
    '| build | nodes | projects | store | processes | agents | cap | median durable mutations/s | by round | × files, median (range) | × files by round |',
    '| --- | ---: | ---: | --- | ---: | ---: | --- | ---: | --- | ---: | --- |',
    ...rows,
    '',
  ];
}

function markdown(result) {
  const ratioOf = overFiles(result);
  const or = (value) => value ?? '-';
  const rows = result.steps.map((step) => {
    const ratio = ratioOf(step);
    return `| ${result.rounds > 1 ? `${step.round} | ` : ''}${step.build} | ${step.nodes} | ${step.projects} | ${step.store} | ${step.processes}${step.cpu_per_process === null ? '' : ` (cap ${step.cpu_per_process})`} | ${step.agents} | ${step.mutations_per_second} | ${ratio === undefined ? '-' : `${ratio.toFixed(2)}×`} | ${step.p50_ms} | ${step.p99_ms} | ${step.forwarded_share} | ${step.server_cpu_us_per_mutation} | ${step.server_cpu_us_per_mutation_by_process.join(' + ')} | ${step.owners ? step.owners.projects_by_process.join(' + ') : '-'} | ${step.time.server_main_threads.map(({ running, waiting }) => `${running}/${waiting}`).join(' + ')} | ${step.time.machine_busy_cores} | ${or(step.database_cpu_us_per_mutation)} | ${step.mutations_per_commit} | ${or(step.statements_per_commit)} | ${or(step.statements_per_mutation)} |`;
  });
  const loads = result.machine.load.map((load) => load[0].toFixed(1));
  const thousands = (value) => Math.round(value / 1_000).toLocaleString('en-US');
  const instructionRows = result.steps
    .filter((step) => step.instructions_per_mutation !== undefined)
    .map(
      (step) =>
        `| ${step.build} | ${step.projects} | ${step.processes} | ${step.agents} | ${step.offered_per_second} | ${step.mutations_per_second} | ${step.kept_up ? 'yes' : 'no'} | ${step.takeovers_in_window} | ${step.forwarded_share} | ${thousands(step.instructions_per_mutation)} | ${step.instructions_per_mutation_by_process.map(thousands).join(' + ')} | ${thousands(step.compiler_instructions_per_mutation)} | ${thousands(step.major_gc_instructions_per_mutation)} | ${thousands(step.request_instructions_per_mutation)} | ${step.idle_instructions_per_second_by_process.map(thousands).join(' + ')} | ${or(step.database_cpu_us_per_mutation)} | ${step.mutations_per_commit} | ${or(step.statements_per_commit)} |`,
    );
  // Throughput by process count, each over the 1-process PostgreSQL step of the same build, size, projects, agents and cap.
  const capOf = (step) => step.cpu_per_process ?? 'none';
  const single = Object.fromEntries(result.steps.filter((step) => step.store === 'postgresql' && step.processes === 1).map((step) => [`${step.build}-${step.nodes}-${step.projects}-${step.agents}-${capOf(step)}`, step.mutations_per_second]));
  const scalingRows = result.steps
    .filter((step) => step.store === 'postgresql')
    .map((step) => {
      const one = single[`${step.build}-${step.nodes}-${step.projects}-${step.agents}-${capOf(step)}`];
      const { time } = step;
      return `| ${step.build} | ${capOf(step)} | ${step.nodes} | ${step.projects} | ${step.agents} | ${step.processes} | ${step.mutations_per_second} | ${one ? `${(step.mutations_per_second / one).toFixed(2)}×` : '-'} | ${step.server_cpu_us_per_mutation} | ${or(step.capped?.server_cpu_us_per_mutation)} | ${step.capped ? step.capped.throttled_share_by_process.join(' + ') : '-'} | ${step.capped ? step.capped.idle_cpu_us_per_second_by_process.join(' + ') : '-'} | ${time.server_cpu_cores} | ${or(step.statements_per_commit)} | ${step.mutations_per_commit} | ${or(step.database_cpu_us_per_mutation)} | ${time.database_cores?.running ?? '-'} | ${time.generator_cpu_cores} | ${time.machine_busy_cores} | ${time.cpu_pressure} | ${step.forwarded_share} |`;
    });
  const scalingTable = result.steps.some((step) => step.cpu_per_process !== null)
    ? [
        `By process count, PostgreSQL; "cap" is each server process's share of a core (a CPU cgroup quota, ${CPU_PERIOD_US} µs period), "none" uncapped:`,
        '',
        '| build | cap | nodes | projects | agents | processes | durable mutations/s | ÷ 1 process | server CPU µs a mutation (/proc) | the same by the cgroups | share of quota periods throttled, by process | idle CPU µs a second, by process | server cores | statements a commit | mutations a commit | database CPU µs a mutation | database cores | load generator cores | busy cores of the machine | CPU pressure | share forwarded |',
        '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...scalingRows,
        '',
      ]
    : [];
  const instructionTable = instructionRows.length
    ? [
        `Under callgrind, ${result.rate} mutations a second offered in every step${result.per_process || result.rate_per_process ? ', per process' : ''}; instructions of every server process in the window over its durable mutations:`,
        '',
        '| build | projects | processes | agents | offered mutations/s | durable mutations/s | kept up | takeovers in the window | share forwarded | server k instructions a mutation | by process | of which V8\'s optimizing compiler | of which full collections | the rest | idle k instructions a second, by process | database CPU µs a mutation | mutations a commit | statements a commit |',
        '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...instructionRows,
        '',
      ]
    : [];
  return [
    `${result.seconds_per_step} s per step, ${result.machine.cpus} cores shared by the load generator, the servers and PostgreSQL; agents routed: ${result.route}; ${result.rate ? `${result.rate} mutations a second offered` : 'agents as fast as answered'}; 1-minute load average ${loads[0]} at the start, then after each step ${loads.slice(1).join(', ')}.`,
    '',
    ...instructionTable,
    ...scalingTable,
    ...roundsTable(result),
    `| ${result.rounds > 1 ? 'round | ' : ''}build | nodes | projects | store | processes | agents | durable mutations/s | × files, same build, size, projects and agents | p50 ms | p99 ms | share forwarded | server CPU µs a mutation | by process | projects owned, by process | main thread running/waiting for a core, by process | busy cores of the machine | database CPU µs a mutation | mutations a commit | statements a commit | statements a mutation |`,
    `| ${result.rounds > 1 ? '---: | ' : ''}--- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
    ...rows,
    '',
  ].join('\n');
}
