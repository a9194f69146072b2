// `npm run bench:swarm`: N agent processes (bench/swarm-agent.mjs) work a generated DAG of tasks
// with known durations until every task is done, through the CLI on local files (`cli`), through
// linked checkouts against a real `server run` on 127.0.0.1 (`server`, one checkout and
// TASKDAG_HOME per agent), and through `taskdag mcp` (`mcp`, one session per agent). Durations
// are sleeps of 1-8 units of --unit-ms, so the figures are in units: the makespan against its
// lower bound max(critical path, total work / agents), and the time agents spend in taskdag
// calls per task done (the coordination overhead). Every run checks that each task was done
// exactly once. Writes bench/results/swarm.{json,md}.
// Options: --tasks N (default 2000), --agents 8,32, --arms cli,server,mcp, --unit-ms 50,
// --strategies any,next (how agents pick: see swarm-agent.mjs), --idle wait|poll (an idle agent
// waits in `next --wait`, or polls `status` with a backoff), --recovery (also the lease
// recovery arm: a third of the agents killed mid-run; --lease 10s on every claim, a sweep every
// --sweep-ms 1000), --loop calls|batch (each finished task's submit and accept a call each, or
// in one batch with the claim of the next task by `next`, picking by next: a `taskdag batch`
// process, or the MCP `batch` tool). Arms `server-mcp`: linked checkouts as `server`, each agent
// through its own `taskdag mcp` session on its checkout. Each run reports the CPU time taskdag
// spent per task done: every taskdag process the agents started (their `taskdag mcp` sessions)
// and the server's, apart from the agents' own.
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { random, sharedWorkload, writeWorkloadProject } from './generate.mjs';
import { call, cpuMsOf, envFileOf, runTaskdag, startServer } from './server-driver.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const AGENT = path.join(ROOT, 'bench', 'swarm-agent.mjs');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const PROJECT = 'bench-shared';

/** A DAG of `count` open tasks (the shared workload's edges) with a duration of 1-8 units each. */
export function swarmPlan(count, seed = 11) {
  const rng = random(seed);
  return sharedWorkload(count, seed).map((task) => ({ ...task, done: false, duration: 1 + rng.int(8) }));
}

/** The plan's task ids (as writeWorkloadProject names them), total work, critical path and the makespan's lower bound for `agents`. */
export function planFigures(plan, agents) {
  const ids = plan.map((_, i) => `T-${String(i).padStart(5, '0')}`);
  const finish = [];
  // Blockers always come earlier in the plan, so one pass in order finds every longest chain.
  plan.forEach((task, i) => (finish[i] = task.duration + Math.max(0, ...task.deps.map((dep) => finish[dep]))));
  const totalWork = plan.reduce((sum, task) => sum + task.duration, 0);
  const criticalPath = Math.max(...finish);
  return { ids, durations: Object.fromEntries(ids.map((id, i) => [id, plan[i].duration])), totalWork, criticalPath, bound: Math.max(criticalPath, totalWork / agents) };
}

/** Where agents work: a checkout (and its env) per agent, and a way to read the final status. */
const SETUPS = {
  /** One checkout on local files, shared by every agent (the file store's lock orders them). */
  async cli(dir, plan, agents) {
    const project = await writeWorkloadProject(dir, plan);
    const place = { cwd: project.checkout, env: project.env };
    return { places: Array.from({ length: agents }, () => place), close: async () => {} };
  },
  /** The same project served by `server run`; each agent has its own checkout linked to it and its own bearer. */
  async server(dir, plan, agents) {
    const project = await writeWorkloadProject(path.join(dir, 'seed'), plan);
    const root = path.join(dir, 'srv');
    runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0']);
    cpSync(project.stateDir, path.join(root, 'data', 'projects', PROJECT), { recursive: true });
    const env = envFileOf(path.join(root, 'server.env'));
    const server = await startServer(path.join(root, 'server.json'), env);
    const origin = `http://127.0.0.1:${server.port}`;
    const bearer = (await call(server.port, null, 'POST', '/v1/auth/login', { password: env.TASKDAG_SERVER_PASSWORD })).body.bearer;
    const places = Array.from({ length: agents }, (_, index) => linkedCheckout(path.join(dir, `agent-${index}`), origin, bearer));
    return {
      places,
      cpuMs: () => cpuMsOf(server.pid),
      close: () =>
        new Promise((resolve) => {
          server.removeAllListeners('exit');
          server.once('exit', resolve);
          server.kill('SIGTERM');
        }),
    };
  },
  /** As `cli`, each agent through its own `taskdag mcp` session. */
  async mcp(dir, plan, agents) {
    return SETUPS.cli(dir, plan, agents);
  },
  /** As `server`, each agent through its own `taskdag mcp` session on its linked checkout. */
  async 'server-mcp'(dir, plan, agents) {
    return SETUPS.server(dir, plan, agents);
  },
};

/** Whether agents of `arm` keep one `taskdag mcp` session each. */
const overMcp = (arm) => arm === 'mcp' || arm === 'server-mcp';

/** A checkout linked to `origin` for the served project, with `bearer` stored as `taskdag login` stores it. */
function linkedCheckout(dir, origin, bearer) {
  const checkout = path.join(dir, 'checkout');
  const home = path.join(dir, 'home');
  mkdirSync(checkout, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { HOME: home, TASKDAG_HOME: home };
  writeFileSync(path.join(checkout, '.taskdag.json'), JSON.stringify({ project_id: PROJECT }) + '\n');
  runTaskdag(['link', origin], { cwd: checkout, env });
  const sessions = { version: 1, sessions: { [origin]: { bearer, expires_at: null, stored_at: new Date().toISOString() } } };
  writeFileSync(path.join(home, 'remote-sessions.json'), JSON.stringify(sessions), { mode: 0o600 });
  return { cwd: checkout, env };
}

/** Starts one agent process; `finished` resolves to its final report, `holding` is the task it works on. `onProgress` hears of each task it finishes. */
function startAgent(config, onProgress, onTaken) {
  const child = spawn(process.execPath, [AGENT, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.name = config.name;
  let pending = '';
  let report = null;
  let errors = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      const message = JSON.parse(line);
      if ('took' in message) {
        child.holding = message.took;
        onTaken?.(message.took, child);
      }
      else if ('submitted' in message) {
        child.holding = null;
        child.submitted = message.submitted;
      } else if ('progress' in message) {
        child.submitted = null;
        onProgress(message.progress, child);
      } else report = message;
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (errors += chunk));
  child.finished = new Promise((resolve, reject) =>
    child.on('close', (code, signal) => (report || signal ? resolve(report) : reject(new Error(`${config.name} exited ${code}: ${errors}`)))),
  );
  return child;
}

/**
 * One swarm: `agents` processes of `strategy` on a fresh `arm` setup, until every task is done.
 * `duringRun(progress)` may act on the running agents (the recovery arm kills some), finish tasks
 * itself (`adopt`) and hand over work to wait for before the final check (`track`; `agentsDone()`
 * is called when every agent has stopped, before that wait, and may return work of its own to
 * wait for, in which it may count a task done that no agent reported: `reportDone`). The result
 * has the figures, the ids the agents report done and a checkout to read the project from.
 */
export async function runSwarm({ arm, agents, strategy, plan, unitMs, scratch, lease, idle = 'wait', loop = 'calls', duringRun, agentsDone }) {
  if (loop === 'batch' && strategy !== 'next') throw new Error('--loop batch needs --strategies next');
  const figures = planFigures(plan, agents);
  const dir = mkdtempSync(path.join(scratch, `${arm}-${agents}-${strategy}-`));
  const setup = await SETUPS[arm](dir, plan, agents);
  try {
    const loadAtStart = os.loadavg()[0];
    const started = Date.now();
    const finishedAt = new Map();
    // When each task was claimed (the last claim, when a killed agent's task was taken again), and
    // when the agent that claimed it was free to (its previous task accepted, or the start).
    const takenAt = new Map();
    const freeAt = new Map();
    // Every task as an agent reports it done (a killed agent's own final report is lost), and
    // those someone else finished (the recovery arm accepts what killed agents had submitted).
    const done = [];
    const pending = [];
    const adopt = (id) => {
      finishedAt.set(id, Date.now());
      done.push(id);
    };
    const children = setup.places.map((place, index) =>
      startAgent(
        { name: `agent-${index}`, mode: overMcp(arm) ? 'mcp' : 'cli', ...place, unitMs, strategy, lease, idle, loop, durations: figures.durations },
        (id, child) => {
          adopt(id);
          child.freeSince = Date.now();
          duringRun?.({ count: finishedAt.size, children, place: setup.places[0], adopt, track: (work) => (pending.push(work), work) });
        },
        (id, child) => {
          takenAt.set(id, Date.now());
          freeAt.set(id, child.freeSince ?? started);
        },
      ),
    );
    const reports = (await Promise.all(children.map((child) => child.finished))).filter(Boolean);
    const settling = agentsDone?.({ place: setup.places[0], ids: figures.ids, isReported: (id) => done.includes(id), reportDone: (id) => done.push(id) });
    await Promise.all(pending);
    await settling;
    // Killed agents report nothing: their taskdag CPU is missing, so the figure is per task the reporting agents did.
    const reported = reports.reduce((sum, report) => sum + report.done.length, 0);
    const taskdagCpuMs = reports.reduce((sum, report) => sum + report.taskdag_cpu_ms, 0) + (setup.cpuMs?.() ?? 0);
    const agentCpuMs = reports.reduce((sum, report) => sum + report.agent_cpu_ms, 0);
    const final = runTaskdag(['status', '--limit', '1'], setup.places[0]).summary;
    assertEachTaskOnce(figures.ids, done, final);
    const makespanMs = Math.max(...finishedAt.values()) - started;
    const callMs = reports.reduce((sum, report) => sum + report.call_ms, 0);
    const units = (ms) => Math.round((ms / unitMs) * 100) / 100;
    const delays = readyToTaken(figures.ids, plan, started, finishedAt, takenAt, freeAt);
    return {
      arm,
      agents,
      strategy: `${idle === 'wait' && strategy === 'next' ? 'next --wait' : strategy}${loop === 'batch' ? ', then submit + accept + next in one batch' : ''}`,
      tasks: figures.ids.length,
      unit_ms: unitMs,
      critical_path: figures.criticalPath,
      work_per_agent: Math.round((figures.totalWork / agents) * 100) / 100,
      bound: Math.round(figures.bound * 100) / 100,
      makespan: units(makespanMs),
      makespan_s: Math.round(makespanMs / 100) / 10,
      load: [loadAtStart, os.loadavg()[0]].map((value) => Math.round(value * 10) / 10),
      ratio: Math.round((makespanMs / unitMs / figures.bound) * 100) / 100,
      overhead_ms_per_task: Math.round(callMs / done.length),
      overhead_units_per_task: units(callMs / done.length),
      taskdag_cpu_ms_per_task: Math.round(taskdagCpuMs / Math.max(1, reported)),
      agent_cpu_ms_per_task: Math.round(agentCpuMs / Math.max(1, reported)),
      cpu_share: Math.round((taskdagCpuMs / (os.cpus().length * makespanMs)) * 100) / 100,
      calls_per_task: Math.round((reports.reduce((sum, report) => sum + report.calls, 0) / done.length) * 100) / 100,
      longest_call_ms: Math.max(0, ...reports.map((report) => report.longest_call_ms)),
      lost_picks: reports.reduce((sum, report) => sum + report.lost, 0),
      idle_polls: reports.reduce((sum, report) => sum + report.idle_polls, 0),
      fenced: reports.reduce((sum, report) => sum + report.fenced, 0),
      ready_to_taken_ms: delays,
      by_op: byOperation(reports),
      finishedAt,
      done,
      place: setup.places[0],
    };
  } finally {
    await setup.close();
  }
}

/**
 * How long each task waited to be claimed once it was ready (the last of its blockers accepted,
 * or the start) and the agent that claimed it was free (its previous task accepted, or the
 * start): the coordination delay, not the queueing for a free agent. Mean, median, 90th
 * percentile and the largest, in ms, and the sum along the chain that ended last.
 */
function readyToTaken(ids, plan, started, finishedAt, takenAt, freeAt) {
  const delay = ids.map((id, i) => {
    const readyAt = Math.max(started, freeAt.get(id) ?? started, ...plan[i].deps.map((dep) => finishedAt.get(ids[dep]) ?? started));
    return Math.max(0, (takenAt.get(id) ?? readyAt) - readyAt);
  });
  const sorted = [...delay].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  // The chain the makespan followed: from the last task finished back through its latest-finishing blocker.
  let last = ids.reduce((best, id, i) => ((finishedAt.get(id) ?? 0) > (finishedAt.get(ids[best]) ?? 0) ? i : best), 0);
  let onChain = 0;
  let chainTasks = 0;
  for (;;) {
    onChain += delay[last];
    chainTasks += 1;
    const deps = plan[last].deps;
    if (deps.length === 0) break;
    last = deps.reduce((best, dep) => ((finishedAt.get(ids[dep]) ?? 0) > (finishedAt.get(ids[best]) ?? 0) ? dep : best), deps[0]);
  }
  return { mean: Math.round(delay.reduce((sum, value) => sum + value, 0) / delay.length), p50: at(0.5), p90: at(0.9), max: sorted.at(-1), last_chain_sum: onChain, last_chain_tasks: chainTasks };
}

/** Calls and mean ms per operation, over every agent that reported. */
function byOperation(reports) {
  const total = {};
  for (const report of reports) {
    for (const [op, { calls, ms }] of Object.entries(report.by_op ?? {})) {
      const entry = (total[op] ??= { calls: 0, ms: 0 });
      entry.calls += calls;
      entry.ms += ms;
    }
  }
  return Object.fromEntries(Object.entries(total).map(([op, { calls, ms }]) => [op, { calls, mean_ms: Math.round(ms / calls) }]));
}

/** Every task done exactly once, by the agents' own accounts and by the project's final status. */
function assertEachTaskOnce(ids, done, summary) {
  const seen = new Set();
  for (const id of done) {
    if (seen.has(id)) throw new Error(`${id} was done twice`);
    seen.add(id);
  }
  const missing = ids.filter((id) => !seen.has(id));
  if (missing.length > 0) throw new Error(`${missing.length} tasks never done: ${missing.slice(0, 5).join(', ')}`);
  const left = summary.ready + summary.in_progress + summary.submitted + summary.blocked;
  if (left !== 0) throw new Error(`the project still has open tasks: ${JSON.stringify(summary)}`);
}

/**
 * The lease recovery arm: agents claim with `next --lease`, and a sweeper runs `sweep-leases` as
 * recovery every `sweepMs`. When a third of the tasks are done, a third of the agents are killed
 * (SIGKILL: their claims stay behind until their leases end); reports how long after the kill
 * the last of the tasks they held was done by the others.
 */
export async function runRecovery({ arm, agents, plan, unitMs, scratch, lease, sweepMs, idle = 'wait' }) {
  let killedAt = null;
  const held = [];
  let sweeping = true;
  let sweeper = null;
  const sweep = async (place, adopt) => {
    while (sweeping) {
      await runTaskdagAsync(['sweep-leases', '--as', 'recovery'], place);
      await acceptVictimsWork(place, adopt);
      await sleep(sweepMs);
    }
  };
  // A killed agent may have submitted its task without accepting it (leases do not cover a
  // submission): a reviewer accepts it, as one would in a team.
  const accepted = new Set();
  const acceptVictimsWork = async (place, adopt) => {
    if (victims.size === 0) return;
    const submitted = (await runTaskdagAsync(['status', '--status', 'submitted', '--limit', '1000'], place)).tasks.submitted;
    for (const { id } of submitted) {
      if (accepted.has(id) || !victims.has((await runTaskdagAsync(['show', id], place)).node.submitted_by)) continue;
      accepted.add(id);
      await runTaskdagAsync(['accept', id, '--as', 'reviewer'], place);
      adopt(id);
    }
  };
  // The kill goes by the agents' progress lines, which a loaded machine delivers late: an agent
  // thought to hold a task may already have accepted it and be killed before it said so. Such
  // a task is done once, by a victim, and no agent reports it; it was not left to recover.
  const countUnreportedAccepts = async ({ place, ids, isReported, reportDone }) => {
    for (const id of ids) {
      if (isReported(id)) continue;
      const { node } = await runTaskdagAsync(['show', id], place);
      if (node.status !== 'done' || !victims.has(node.submitted_by)) continue;
      reportDone(id);
      if (held.includes(id)) held.splice(held.indexOf(id), 1);
    }
  };
  const victims = new Set();
  const result = await runSwarm({
    arm,
    agents,
    strategy: 'next',
    plan,
    unitMs,
    scratch,
    lease,
    idle,
    duringRun: ({ count, children, place, adopt, track }) => {
      sweeper ??= track(sweep(place, adopt));
      if (killedAt !== null || count < plan.length / 3) return;
      killedAt = Date.now();
      // Agents holding a claim first: a kill between two tasks would leave nothing to recover.
      // Agents inside their accept last: one killed after its accept committed but before it
      // said so would leave a task done that nobody reports.
      const order = (child) => (child.holding ? 0 : child.submitted ? 2 : 1);
      const chosen = [...children].sort((a, b) => order(a) - order(b)).slice(0, Math.floor(agents / 3));
      for (const child of chosen) {
        if (child.holding) held.push(child.holding);
        victims.add(child.name);
        child.kill('SIGKILL');
      }
    },
    agentsDone: async (finished) => {
      sweeping = false;
      await sweeper;
      await countUnreportedAccepts(finished);
    },
  });
  const recoveredMs = Math.max(0, ...held.map((id) => result.finishedAt.get(id) - killedAt));
  return { ...result, strategy: `${result.strategy} --lease ${lease}, ${Math.floor(agents / 3)} killed`, killed: Math.floor(agents / 3), held: held.length, recovered_within: Math.round((recoveredMs / unitMs) * 100) / 100, recovered_within_s: Math.round(recoveredMs / 100) / 10 };
}

/** `taskdag args` in `place` without blocking this process's loop (the agents' progress is read meanwhile). */
function runTaskdagAsync(args, { cwd, env }) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [BINARY, ...args], { cwd, env: { ...process.env, ...env } }, (error, stdout) => (error ? reject(new Error(`taskdag ${args.join(' ')}: ${stdout}`)) : resolve(JSON.parse(stdout)))),
  );
}

function recoveryTable(runs) {
  if (runs.length === 0) return [];
  return [
    '',
    '| arm | agents | killed | tasks they held | their tasks all done, after the kill | CLAIM_FENCED submits |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map((run) => `| ${run.arm} | ${run.agents} | ${run.killed} | ${run.held} | ${run.recovered_within} units (${run.recovered_within_s} s) | ${run.fenced} |`),
  ];
}

function markdown(report) {
  const rows = report.runs.map(
    (run) =>
      `| ${run.arm} | ${run.agents} | ${run.strategy} | ${run.critical_path} | ${run.work_per_agent} | ${run.makespan} (${run.makespan_s} s) | ${run.ratio}× | ${run.overhead_units_per_task} (${run.overhead_ms_per_task} ms) | ${run.taskdag_cpu_ms_per_task} ms (${Math.round(run.cpu_share * 100)}%) | ${run.calls_per_task} | ${run.ready_to_taken_ms.mean} / ${run.ready_to_taken_ms.p90} ms | ${run.ready_to_taken_ms.last_chain_sum} ms over ${run.ready_to_taken_ms.last_chain_tasks} | ${run.longest_call_ms} ms | ${run.lost_picks} | ${run.load.join(' → ')} |`,
  );
  const ops = report.runs.map((run) => `| ${run.arm} | ${run.agents} | ${run.strategy} | ${Object.entries(run.by_op).map(([op, { calls, mean_ms }]) => `${op} ${calls} × ${mean_ms} ms`).join('; ')} |`);
  return [
    `${report.tasks} tasks, 1 unit = ${report.unit_ms} ms, ${report.machine.cpus} cores shared by the agents and taskdag (load ${report.machine.load.map((value) => value.toFixed(1)).join(' ')} at start).`,
    '',
    '| arm | agents | picking | critical path | work / agents | makespan | × bound | overhead per task, units | taskdag CPU per task (share of the cores) | calls per task | ready → taken, mean / p90 | ready → taken along the last chain | longest call | lost picks | load average, start → end |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    '| arm | agents | picking | calls by operation: count × mean |',
    '| --- | ---: | --- | --- |',
    ...ops,
    ...recoveryTable(report.runs.filter((run) => run.killed !== undefined)),
    '',
  ].join('\n');
}

async function main() {
  const { values: options } = parseArgs({
    options: {
      tasks: { type: 'string', default: '2000' },
      agents: { type: 'string', default: '8,32' },
      arms: { type: 'string', default: 'cli,server,mcp' },
      'unit-ms': { type: 'string', default: '50' },
      strategies: { type: 'string', default: 'any,next' },
      idle: { type: 'string', default: 'wait' },
      loop: { type: 'string', default: 'calls' },
      recovery: { type: 'boolean', default: false },
      lease: { type: 'string', default: '10s' },
      'sweep-ms': { type: 'string', default: '1000' },
    },
  });
  const plan = swarmPlan(Number(options.tasks));
  const unitMs = Number(options['unit-ms']);
  const report = { machine: { cpus: os.cpus().length, load: os.loadavg() }, tasks: plan.length, unit_ms: unitMs, runs: [] };
  const strategies = options.strategies.split(',');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-swarm-'));
  const log = (message) => process.stderr.write(`[bench:swarm] ${message}\n`);
  try {
    for (const arm of options.arms.split(',')) {
      for (const agents of options.agents.split(',').map(Number)) {
        const runs = strategies.map((strategy) => () => runSwarm({ arm, agents, strategy, plan, unitMs, scratch, idle: options.idle, loop: options.loop }));
        if (options.recovery) runs.push(() => runRecovery({ arm, agents, plan, unitMs, scratch, lease: options.lease, sweepMs: Number(options['sweep-ms']), idle: options.idle }));
        for (const run of runs) {
          const { finishedAt, done, place, ...result } = await run();
          report.runs.push(result);
          log(`${arm}, ${agents} agents, ${result.strategy}: makespan ${result.makespan} units, ${result.ratio}× the bound ${result.bound}, ${result.overhead_units_per_task} units of calls per task, taskdag CPU ${result.taskdag_cpu_ms_per_task} ms a task (${Math.round(result.cpu_share * 100)}% of the cores)`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench', 'results', 'swarm.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(path.join(ROOT, 'bench', 'results', 'swarm.md'), markdown(report));
  process.stdout.write(markdown(report));
}

if (process.argv[1] === new URL(import.meta.url).pathname) await main();
