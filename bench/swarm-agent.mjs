// One agent of `npm run bench:swarm` (bench/swarm.mjs starts N of these as processes). It works
// the project until no task is left: pick a task, take it, sleep its known duration, submit it,
// accept it. Every call goes through the real binary: a `taskdag` process per call on a local or
// a linked checkout (`cli`), or one `taskdag mcp` session it keeps for the whole run (`mcp`).
// argv[2] is its JSON configuration: { name, mode, cwd, env, unitMs, durations, strategy, lease, idle, loop }
// (lease: a duration such as 10s put on every claim; submit always carries the claim's fencing token;
// idle: how an agent with nothing ready waits, see IDLE; loop: 'calls', a call per step, or 'batch',
// see finishAndNext).
// It prints one JSON line when it is done: the tasks it finished (with when), the time it spent
// in taskdag calls, how many picks were lost to another agent, and the CPU time of its taskdag
// processes (every `taskdag` it started, or its `taskdag mcp`) and its own.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const config = JSON.parse(process.argv[2]);
// Picks lost to another agent: the task was taken (or is no longer ready) by the time we asked.
const LOST_PICKS = new Set(['ALREADY_CLAIMED', 'NOT_READY', 'INVALID_TRANSITION']);
const CALL_TIMEOUT_MS = 600_000;

const leaseArgs = () => (config.lease ? { lease: config.lease } : {});

/** Nothing is ready, in progress, submitted or blocked: no task is left to become ready. */
function nothingLeft(summary) {
  return summary.ready + summary.in_progress + summary.submitted + summary.blocked === 0;
}

/** How an agent chooses its next task: each returns the claimed task's node, or null when it got none (none ready, or a pick lost). */
const STRATEGIES = {
  /** Any ready task: a random one of the ready list (the first one would make every agent collide), then take it. */
  async any(taskdag, tally) {
    const status = await taskdag('status', { limit: 64 });
    const ready = status.value.tasks.ready;
    if (ready.length === 0) return null;
    const id = ready[Math.floor(Math.random() * ready.length)].id;
    const taken = await taskdag('take', { id, ...leaseArgs() });
    if (taken.ok) return taken.value.node;
    if (!LOST_PICKS.has(taken.error.code)) throw new Error(`take ${id}: ${JSON.stringify(taken.error)}`);
    tally.lost += 1;
    return null;
  },
  /**
   * The ranked `next` command: one call claims the best ready task (priority, then critical path,
   * then age). With `idle: 'wait'` the call itself waits for a task to become ready (`next --wait`).
   */
  async next(taskdag) {
    const answer = await taskdag('next', { ...leaseArgs(), ...(config.idle === 'wait' ? { wait: WAIT_SECONDS } : {}) });
    if (!answer.ok) throw new Error(`next: ${JSON.stringify(answer.error)}`);
    return answer.value.node ?? null;
  },
};

/**
 * How long one `next --wait` waits (idle: 'wait'): it answers as soon as a task is ready, so this
 * only bounds how long an agent lingers once the last task is taken.
 */
const WAIT_SECONDS = 5;

/**
 * An agent with nothing to do waits for work with `status` alone, a read that takes no lock,
 * rather than asking again with a claiming call, which queues behind every commit. It looks after
 * half a unit, then waits twice as long each time up to `MAX_IDLE_UNITS`: a task on the critical
 * path is claimed by the agent whose accept made it ready (it asks at once), so an idle agent's
 * late look costs slack, not makespan. Returns 'finished' when nothing is left to become ready.
 */
const MAX_IDLE_UNITS = 4;
async function waitForReadyWork(taskdag, tally) {
  // `next --wait` has already waited: one look says whether anything is left to become ready.
  if (config.idle === 'wait' && config.strategy === 'next') {
    const { summary } = (await taskdag('status', { limit: 1 })).value;
    return nothingLeft(summary) ? 'finished' : 'ready';
  }
  for (let units = 0.5; ; units = Math.min(units * 2, MAX_IDLE_UNITS)) {
    const { summary } = (await taskdag('status', { limit: 1 })).value;
    if (summary.ready > 0) return 'ready';
    if (nothingLeft(summary)) return 'finished';
    tally.idle_polls += 1;
    await sleep(units * config.unitMs);
  }
}

/**
 * `loop: 'batch'`: the finished task's submit and accept and the claim of the next task by `next`,
 * in one `batch` (one process, one commit) instead of three calls. The task the accept readied is
 * claimed in the same commit (ranked first when it is on the critical path), so no other agent's
 * wake-up stands between the two. Answers the claimed node (null: nothing ready, then the agent
 * waits in `next --wait`), or 'fenced' when the claim was swept meanwhile (nothing was applied).
 */
async function finishAndNext(taskdag, node) {
  const operations = [
    { op: 'submit', args: { id: node.id, note: 'done', claim_token: node.claim.token } },
    { op: 'accept', args: { id: node.id } },
    { op: 'next', args: leaseArgs() },
  ];
  // The command reads the batch on its standard input; the MCP tool takes it as its arguments.
  const answer = await taskdag('batch', config.mode === 'mcp' ? { operations } : { stdin: JSON.stringify({ operations }) });
  if (!answer.ok && answer.error.details?.error?.code === 'CLAIM_FENCED') return 'fenced';
  if (!answer.ok) throw new Error(`batch for ${node.id}: ${JSON.stringify(answer.error)}`);
  return answer.value.results[2].result.node;
}

/** `taskdag op` by one process per call; arguments become the id word and flags (`stdin`: the input, given as `--stdin`). */
function cliCaller() {
  return (op, { stdin, ...args }) => {
    const words = [op];
    for (const [key, value] of Object.entries(args)) words.push(...(key === 'id' ? [value] : [`--${key.replaceAll('_', '-')}`, String(value)]));
    if (stdin !== undefined) words.push('--stdin');
    words.push('--as', config.name);
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BINARY, ...words], { cwd: config.cwd, env: { ...process.env, ...config.env }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
      if (stdin !== undefined) child.stdin.end(stdin);
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('error', reject);
      child.on('close', () => {
        try {
          resolve(answerOf(JSON.parse(out)));
        } catch {
          reject(new Error(`taskdag ${words.join(' ')}: ${out}`));
        }
      });
    });
  };
}

/** One `taskdag mcp --as name` session for the whole run; each call is a tool call. */
async function mcpCaller() {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BINARY, 'mcp', '--as', config.name], cwd: config.cwd, env: { ...process.env, ...config.env }, stderr: 'ignore' });
  const client = new Client({ name: `swarm-${config.name}`, version: '1.0.0' });
  await client.connect(transport);
  // The SDK gives up on a call after 60 s by default; on a machine loaded past its cores, 32
  // agents queueing on one project's lock can wait longer than that, and the run must still end.
  const call = async (op, args) => answerOf(JSON.parse((await client.callTool({ name: op, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })).content[0].text));
  call.close = async () => {
    const { pid } = transport;
    await client.close();
    // Its CPU time is counted once it has been waited for (reapedChildrenCpuMs).
    for (let tries = 0; pid !== null && tries < 500 && alive(pid); tries++) await sleep(10);
  };
  return call;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** CPU time (ms) of this process's children that have ended and been waited for: cutime and cstime, fields 16 and 17 of proc(5). */
function reapedChildrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // Clock ticks of 10 ms (USER_HZ is 100 on Linux).
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

function answerOf(value) {
  return value && value.ok === false ? { ok: false, error: value.error } : { ok: true, value };
}

async function work() {
  const raw = config.mode === 'mcp' ? await mcpCaller() : cliCaller();
  const tally = { calls: 0, call_ms: 0, longest_call_ms: 0, lost: 0, idle_polls: 0, fenced: 0, by_op: {} };
  const taskdag = async (op, args) => {
    const started = performance.now();
    let answer;
    try {
      return (answer = await raw(op, args));
    } finally {
      const took = performance.now() - started;
      // A `next --wait` spends its time waiting for work as much as coordinating: counted apart (its
      // share of the delay shows in the orchestrator's ready-to-taken figures instead).
      const key = op === 'next' && args.wait ? (answer?.ok && answer.value.node !== null ? 'next --wait (claimed)' : 'next --wait (none)') : op;
      const entry = (tally.by_op[key] ??= { calls: 0, ms: 0 });
      entry.calls += 1;
      entry.ms += took;
      if (key === op) {
        tally.calls += 1;
        tally.call_ms += took;
        tally.longest_call_ms = Math.max(tally.longest_call_ms, Math.round(took));
      }
    }
  };
  const pick = STRATEGIES[config.strategy];
  const done = [];
  // The task claimed along with the last one's accept (loop: 'batch'), else picked afresh.
  let claimed = null;
  for (;;) {
    const node = claimed ?? (await pick(taskdag, tally));
    claimed = null;
    if (node === null) {
      if ((await waitForReadyWork(taskdag, tally)) === 'finished') break;
      continue;
    }
    const { id } = node;
    // The orchestrator follows progress (and what the agents it kills were holding) from these lines.
    process.stdout.write(`${JSON.stringify({ took: id })}\n`);
    const started = Date.now();
    await sleep(config.durations[id] * config.unitMs);
    if (config.loop === 'batch') {
      const next = await finishAndNext(taskdag, node);
      if (next === 'fenced') {
        tally.fenced += 1;
        continue;
      }
      process.stdout.write(`${JSON.stringify({ submitted: id })}\n`);
      done.push({ id, started, finished: Date.now() });
      process.stdout.write(`${JSON.stringify({ progress: id })}\n`);
      claimed = next;
      continue;
    }
    const submitted = await taskdag('submit', { id, note: 'done', claim_token: node.claim.token });
    if (!submitted.ok && submitted.error.code === 'CLAIM_FENCED') {
      // Our lease ended and was swept: the task is another agent's now, our work is discarded.
      tally.fenced += 1;
      continue;
    }
    if (!submitted.ok) throw new Error(`submit ${id}: ${JSON.stringify(submitted.error)}`);
    process.stdout.write(`${JSON.stringify({ submitted: id })}\n`);
    const accepted = await taskdag('accept', { id });
    if (!accepted.ok) throw new Error(`accept ${id}: ${JSON.stringify(accepted.error)}`);
    done.push({ id, started, finished: Date.now() });
    process.stdout.write(`${JSON.stringify({ progress: id })}\n`);
  }
  await raw.close?.();
  const own = process.cpuUsage();
  const cpu = { taskdag_cpu_ms: reapedChildrenCpuMs(), agent_cpu_ms: Math.round((own.user + own.system) / 1000) };
  process.stdout.write(`${JSON.stringify({ name: config.name, done, ...tally, call_ms: Math.round(tally.call_ms), ...cpu })}\n`);
}

await work();
