// What the server benches share: running the built binary, starting `server run`, calling its
// HTTP API over keep-alive connections, and the agent workload they time.
import { randomUUID } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const agentPool = new http.Agent({ keepAlive: true, maxSockets: 512 });

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
 * port in `port`. `extraNodeArgs` and BENCH_SERVER_NODE_ARGS go to its node.
 */
export function startServer(config, env, extraNodeArgs = [], binary = BINARY) {
  return new Promise((resolve, reject) => {
    const nodeArgs = [...extraNodeArgs, ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const child = spawn(process.execPath, [...nodeArgs, binary, 'server', 'run', config], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (chunk) => {
      child.port = JSON.parse(String(chunk).split('\n')[0]).port;
      resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`server run exited ${code}`)));
  });
}

/**
 * One request to the server on 127.0.0.1:`port`; resolves to its status and body, parsed when
 * first read: the load generator shares the machine's cores with the server, and an agent loop
 * reads the body of a failure only.
 */
export function call(port, bearer, method, route, body, extraHeaders = {}) {
  const text = JSON.stringify(body);
  const headers = { 'X-Taskdag-Protocol-Version': '1', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...extraHeaders };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: route, headers, agent: agentPool }, (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (data += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          get body() {
            return JSON.parse(data);
          },
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

/**
 * `agents` loops, agent i on `ports[i mod ports.length]`, each: add-task, take it, submit it,
 * accept it (four durable mutations), and a status read after every cycle, for `seconds` after a
 * short warm-up. Latency is per request. `count`, if given, returns counters (numbers by name)
 * read as the window opens and closes; their differences are returned as `counted`. Tasks
 * are named `idPrefix-agent-cycle`. `requestIds`: every mutation carries an Idempotency-Key.
 */
export async function agentLoad({ ports, bearer, project, initiative, agents, seconds, count, idPrefix = `T-bench-${agents}`, requestIds = false }) {
  const latencies = [];
  let mutations = 0;
  let counting = false;
  let running = true;
  const op = async (port, operation, args, agent) => {
    const started = performance.now();
    // A linked checkout sends each mutation with a request id the server commits with it (docs/remote.md).
    const headers = requestIds && operation !== 'status' ? { 'Idempotency-Key': randomUUID() } : {};
    const answer = await call(port, bearer, 'POST', `/v1/projects/${project}/ops/${operation}`, { args, agent }, headers);
    if (answer.status !== 200) throw new Error(`${operation}: ${JSON.stringify(answer.body)}`);
    if (counting) {
      latencies.push(performance.now() - started);
      if (operation !== 'status') mutations += 1;
    }
  };
  const loop = async (index) => {
    const port = ports[index % ports.length];
    for (let cycle = 0; running; cycle++) {
      const id = `${idPrefix}-${index}-${cycle}`;
      await op(port, 'add-task', { id, initiative, title: id, body: '', acceptance: 'ok', blocked_by: [] }, `agent-${index}`);
      await op(port, 'take', { id }, `agent-${index}`);
      await op(port, 'submit', { id, note: 'done' }, `agent-${index}`);
      await op(port, 'accept', { id }, 'reviewer');
      await op(port, 'status', { limit: 5 }, null);
    }
  };
  const loops = Array.from({ length: agents }, (_, index) => loop(index));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const countedBefore = count?.();
  counting = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  counting = false;
  const elapsed = (performance.now() - started) / 1_000;
  const counted = count ? Object.fromEntries(Object.entries(count()).map(([name, value]) => [name, value - countedBefore[name]])) : undefined;
  running = false;
  await Promise.all(loops);
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return { mutations_per_second: Math.round(mutations / elapsed), mutations, requests: latencies.length, p50_ms: at(0.5), p99_ms: at(0.99), counted };
}
