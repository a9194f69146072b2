// What the server benches share: running the built binary, starting `server run`, calling its
// HTTP API over keep-alive connections, and the agent workload they time.
import { randomUUID } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const agentPool = new http.Agent({ keepAlive: true, maxSockets: 512 });
/** Marks, among a call's extra headers, a call already tried again (never sent). */
const RETRIED = Symbol('retried');
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** Runs `taskdag args` (this build's, or `binary`; in `cwd`, `env` added) to completion and returns its parsed output; throws on failure. */
export function runTaskdag(args, { cwd, env, binary = BINARY } = {}) {
  const child = spawnSync(process.execPath, [binary, ...args], { encoding: 'utf8', cwd, env: { ...process.env, ...env } });
  if (child.status !== 0) throw new Error(`taskdag ${args.join(' ')}: ${child.stdout}${child.stderr}`);
  return JSON.parse(child.stdout);
}

/** The built binary's help text: which commands and flags it has. */
runTaskdag.help = () => spawnSync(process.execPath, [BINARY, '--help'], { encoding: 'utf8' }).stdout;

/** The variables a `server init` root's server.env sets (the server password among them). */
export function envFileOf(file) {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * Starts `server run config` (this build's, or `binary`) and resolves to the child, its listening
 * port in `port`. `extraNodeArgs` and BENCH_SERVER_NODE_ARGS go to its node; `launcher`, a
 * command and its arguments (valgrind, say), runs node under it, with the same process id.
 */
export function startServer(config, env, extraNodeArgs = [], binary = BINARY, launcher = []) {
  return new Promise((resolve, reject) => {
    const nodeArgs = [...extraNodeArgs, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const command = [...launcher, process.execPath, ...nodeArgs, binary, 'server', 'run', config];
    const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (chunk) => {
      child.port = JSON.parse(String(chunk).split('\n')[0]).port;
      resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`server run exited ${code}`)));
  });
}

/**
 * Closes the keep-alive sockets no request is using. A socket left idle past the server's
 * keep-alive timeout (5 s), while it loaded a large project on a loaded machine, can be closed by
 * the server just as a new request goes out on it, which then fails with ECONNRESET.
 */
function dropIdleSockets() {
  for (const sockets of Object.values(agentPool.freeSockets)) for (const socket of sockets) socket.destroy();
}

/**
 * One request to the server on 127.0.0.1:`port`; resolves to its status and body, parsed when
 * first read: the load generator shares the machine's cores with the server, and an agent loop
 * reads the body of a failure only.
 */
export function call(port, bearer, method, route, body, extraHeaders = {}) {
  const text = JSON.stringify(body);
  const headers = { 'X-Taskdag-Protocol-Version': '1', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...extraHeaders };
  delete headers[RETRIED];
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  return new Promise((resolve, reject) => {
    // Tried again on a connection of its own: another idle one of the pool may have been closed too.
    const agent = extraHeaders[RETRIED] ? false : agentPool;
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: route, headers, agent }, (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (data += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          get body() {
            return JSON.parse(data);
          },
        }),
      );
    });
    // A keep-alive socket the server closed as this request went out on it: the request never
    // reached the server (Node's documented case for trying again), so it is sent again, once,
    // on a new connection, not another idle one. Paced agents leave their sockets idle for seconds between requests.
    outgoing.on('error', (error) => {
      if (outgoing.reusedSocket && error.code === 'ECONNRESET' && !extraHeaders[RETRIED]) resolve(call(port, bearer, method, route, body, { ...extraHeaders, [RETRIED]: true }));
      else reject(error);
    });
    outgoing.end(text);
  });
}

/**
 * `agents` loops, each: add-task, take it, submit it, accept it (four durable mutations), and a
 * status read after every cycle, for `seconds` after a short warm-up. Latency is per request.
 * Agent i works on `projects[i mod N]` (default: the one `project` and `initiative`); the j-th
 * agent of project k sends to `ports[(k + j) mod P]` (agent i on port i mod P for one project), so
 * each project's agents spread over the processes as a load balancer without stickiness spreads
 * them, or, when the project names a `port` (its owner's, say), all to that one. `count`, if given, returns counters (numbers by name)
 * read as the window opens and closes; their differences are returned as `counted`. Tasks
 * are named `idPrefix-agent-cycle`. `requestIds`: every mutation carries an Idempotency-Key.
 * `followOwner`: an agent sends its next requests to the process a mutation's answer names as
 * the project's owner (`X-Taskdag-Owner`, docs/scaling.md), and back to its own port when a
 * request there fails. `sent` counts the window's mutations by project and port (`project port`).
 * `rate`: after the warm-up (`warmUpSeconds`, as fast as the server answers), the agents offer
 * `rate` mutations a second in all, each agent one every `agents / rate` seconds (staggered, a
 * late one sent at once and the schedule taken up from there, never in a burst), so that every
 * step of a bench has the same load whatever its setup; the warm-up also lasts until every port
 * was sent `warmUpMutations` mutations (`warmUpSent` answers how many each port was sent before the
 * load was paced); `settle` (async), if given, runs between
 * the warm-up and the window, while the paced load goes on; `count` may be async.
 */
export async function agentLoad({ ports, bearer, project, initiative, projects = [{ project, initiative }], agents, seconds, count, idPrefix = `T-bench-${agents}`, requestIds = false, followOwner = false, rate, warmUpSeconds = 0.5, warmUpMutations = 0, settle }) {
  const latencies = [];
  const sent = {};
  /** The warm-up's mutations by the port they were sent to. */
  const warmUpSent = new Map(ports.map((port) => [port, 0]));
  let mutations = 0;
  let counting = false;
  let running = true;
  let pacedFrom = null;
  const gapMs = rate ? (agents * 1_000) / rate : 0;
  /** Waits for the agent's next turn, once the load is paced. */
  const pace = async (index, turn) => {
    if (pacedFrom === null) return turn;
    const due = Math.max(turn ?? pacedFrom + (index * gapMs) / agents, performance.now());
    await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
    return due + gapMs;
  };
  const op = async (port, project, operation, args, agent) => {
    const started = performance.now();
    // A linked checkout sends each mutation with a request id the server commits with it (docs/remote.md).
    const headers = requestIds && operation !== 'status' ? { 'Idempotency-Key': randomUUID() } : {};
    const answer = await call(port, bearer, 'POST', `/v1/projects/${project}/ops/${operation}`, { args, agent }, headers);
    if (answer.status !== 200) throw new Error(`${operation}: ${JSON.stringify(answer.body)}`);
    if (!counting && pacedFrom === null && operation !== 'status') warmUpSent.set(port, (warmUpSent.get(port) ?? 0) + 1);
    if (counting) {
      latencies.push(performance.now() - started);
      if (operation !== 'status') {
        mutations += 1;
        sent[`${project} ${port}`] = (sent[`${project} ${port}`] ?? 0) + 1;
      }
    }
    return answer;
  };
  const loop = async (index) => {
    const which = index % projects.length;
    const { project, initiative } = projects[which];
    const own = projects[which].port ?? ports[(which + Math.floor(index / projects.length)) % ports.length];
    let port = own;
    // The owner a mutation's answer names, when followed; a request that fails there goes to the agent's own port.
    const send = async (operation, args, agent) => {
      const answer = await op(port, project, operation, args, agent).catch((error) => {
        if (port === own) throw error;
        port = own;
        return op(port, project, operation, args, agent);
      });
      const owner = answer.headers['x-taskdag-owner'];
      if (followOwner && owner) port = Number(new URL(owner).port);
    };
    // The agent's next paced turn (undefined until the load is paced).
    let turn;
    const mutate = async (operation, args, agent) => {
      turn = await pace(index, turn);
      if (running) await send(operation, args, agent);
    };
    for (let cycle = 0; running; cycle++) {
      const id = `${idPrefix}-${index}-${cycle}`;
      await mutate('add-task', { id, initiative, title: id, body: '', acceptance: 'ok', blocked_by: [] }, `agent-${index}`);
      await mutate('take', { id }, `agent-${index}`);
      await mutate('submit', { id, note: 'done' }, `agent-${index}`);
      await mutate('accept', { id }, 'reviewer');
      if (running) await send('status', { limit: 5 }, null);
    }
  };
  dropIdleSockets();
  const loops = Array.from({ length: agents }, (_, index) => loop(index));
  await new Promise((resolve) => setTimeout(resolve, warmUpSeconds * 1_000));
  // Each process compiles its hot code after as many calls, whatever the number of processes.
  while (Math.min(...[...warmUpSent.values()]) < warmUpMutations) await new Promise((resolve) => setTimeout(resolve, 200));
  if (rate) pacedFrom = performance.now();
  await settle?.();
  const countedBefore = await count?.();
  counting = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  counting = false;
  const elapsed = (performance.now() - started) / 1_000;
  const countedAfter = await count?.();
  const counted = count ? Object.fromEntries(Object.entries(countedAfter).map(([name, value]) => [name, value - (countedBefore[name] ?? 0)])) : undefined;
  running = false;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return { mutations_per_second: Math.round(mutations / elapsed), mutations, requests: latencies.length, p50_ms: at(0.5), p99_ms: at(0.99), counted, sent, warmUpSent: Object.fromEntries(warmUpSent) };
}

/**
 * The CPU time (user and system, ms) process `pid` has used. Over a step, divided by the
 * mutations (the status reads between them included), it is what the server spends on each,
 * apart from the load generator that shares its cores.
 */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of proc(5), counted from the field after the command name (3).
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS;
}

/**
 * Where the main thread of process `pid` spent its time (ms): running, and runnable but waiting
 * for a core (the scheduler's run queue, /proc/PID/task/PID/schedstat). Over a window, the rest
 * of the wall time it slept: an event loop with nothing to do, waiting on a socket. A thread that
 * waits long in the run queue is short of cores; one that sleeps while throughput falls waits on
 * something else.
 */
export function schedMsOf(pid, thread = pid) {
  try {
    const [running, waiting] = readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ').map(Number);
    return { running: running / 1e6, waiting: waiting / 1e6 };
  } catch {
    // Ended meanwhile (a backend the pool closed).
    return { running: 0, waiting: 0 };
  }
}

/** The system (kernel) part of the CPU time (ms) process `pid` has used, all threads: what callgrind does not count. */
export function systemCpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[12]) * 1_000) / CLOCK_TICKS;
}

/** The context switches of process `pid`'s main thread: voluntary (it slept) and not (a core was taken from it). */
export function contextSwitchesOf(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { voluntary: field('voluntary_ctxt_switches'), involuntary: field('nonvoluntary_ctxt_switches') };
}

/** The children of `pid` (a PostgreSQL cluster's backends and workers, under its postmaster). */
export function childrenOf(pid) {
  const children = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return children;
}

/** The machine's CPU time (ms, every core, every process) busy and in all, from /proc/stat: what else ran beside the bench. */
export function machineCpuMs() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = fields[3] + fields[4];
  return { busy: ((total - idle) * 1_000) / CLOCK_TICKS, total: (total * 1_000) / CLOCK_TICKS };
}

/** The time (ms) some runnable task waited for a core, machine-wide (pressure stall information), or null without PSI. */
export function cpuPressureMs() {
  try {
    return Number(/^some .* total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))[1]) / 1_000;
  } catch {
    return null;
  }
}

/**
 * The CPU time (ms) the children of `pid` have used, those now running and those it has waited
 * for (cutime and cstime): a PostgreSQL cluster's backends and workers, under its postmaster,
 * including the connections a pool closed meanwhile.
 */
export function childrenCpuMsOf(pid) {
  const own = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // cutime and cstime, fields 16 and 17 of proc(5).
  let total = ((Number(own[13]) + Number(own[14])) * 1_000) / CLOCK_TICKS;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      // ppid is field 4 of proc(5).
      if (Number(fields[1]) === pid) total += ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/**
 * The records in a project's ledgers: one per commit, so one per fsync. Every record is a line;
 * a record still being appended as this reads may count or not, which moves a step's ratio by
 * one record in thousands.
 */
export function ledgerRecords(location) {
  let records = 0;
  for (const file of readdirSync(location).filter((name) => /^ledger\.\d+\.jsonl$/.test(name))) {
    const bytes = readFileSync(path.join(location, file));
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) records += 1;
  }
  return records;
}

/**
 * The generator dates every claim in the project's past, months ago, so every in-progress task
 * is a stale claim: 31 at 1k, 1,217 at 50k, and `status` lists every one (spec 4.4, rule 4), a
 * 280 KB answer at 50k that measures JSON encoding, not the server. A live team's claims are
 * recent, and the ones it forgot are few whatever the project's size: here the 31 oldest keep
 * their dates (the 1k project is unchanged) and the others are re-dated within the last hour.
 */
export function liveTeamClaims(state, now) {
  const FORGOTTEN = 31;
  const claimed = Object.values(state.nodes).filter((node) => node.claim).sort((a, b) => a.claim.at.localeCompare(b.claim.at));
  claimed.slice(FORGOTTEN).forEach((node, index) => {
    node.claim = { ...node.claim, at: new Date(now - (index % 60) * 60_000).toISOString() };
  });
}
