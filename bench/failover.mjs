// `node bench/failover.mjs` (after `npm run build`): how long a project is without an owner when
// its owning server process dies or stops answering (docs/scaling.md, "Failover"). Each trial
// starts a private PostgreSQL database (as the tests do) and two `taskdag server run` processes
// on it, with TASKDAG_SERVER_OWNER_LEASE_MS from --lease (default 2000), and finds the owner of
// a project in the database. `kill`: eight agents add notes through the other process (each
// forwarded to the owner) when the owner is SIGKILLed; the takeover time is from the kill to the
// first answer to a mutation sent after it (each such one is first forwarded to the dead owner),
// and the worst wait is the longest any request in flight at the kill took. `pause`: the owner is SIGSTOPped, then one mutation is sent to
// the other process; its latency is the takeover time (bounded by the lease, see scaling.md).
// `forward`: what a forward costs, in CPU time of both server processes per mutation: rounds of
// eight agents adding 50 tasks each, sent to the owner, then to the other process, in turn.
// Options: --trials N (default 5), --lease MS.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { call, cpuMsOf, envFileOf, runTaskdag, startServer } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const { freshDatabase } = require('../build/test/support/postgres.js');
const { openPool } = require('../build/adapters/postgres/pg-pool.js');

const { values: options } = parseArgs({ options: { trials: { type: 'string', default: '5' }, lease: { type: 'string', default: '2000' } } });
const TRIALS = Number(options.trials);
const LEASE_MS = Number(options.lease);
const log = (message) => process.stderr.write(`[bench:failover] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-failover-'));
const results = { kill: [], pause: [], forward: [] };
let running = [];
try {
  for (let trial = 1; trial <= TRIALS; trial++) {
    for (const mode of ['kill', 'pause', 'forward']) {
      const outcome = await runTrial(mode, `${mode}-${trial}`);
      results[mode].push(outcome);
      if (mode === 'forward') log(`forward #${trial}: ${outcome.direct_us} µs CPU a mutation sent to the owner, ${outcome.forwarded_us} µs forwarded`);
      else log(`${mode} #${trial}: takeover ${outcome.takeover_ms} ms${outcome.worst_wait_ms !== undefined ? `, worst wait ${outcome.worst_wait_ms} ms` : ''}`);
    }
  }
} finally {
  for (const child of running) if (child.exitCode === null && child.signalCode !== 'SIGKILL') child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(markdown());
process.exit(0);

async function runTrial(mode, name) {
  const url = freshDatabase();
  const roots = [0, 1].map((index) => path.join(scratch, `${name}-${index}`));
  for (const root of roots) runTaskdag(['server', 'init', '--root', root, '--unit', 'none', '--port', '0', '--store', 'postgresql']);
  const env = { ...envFileOf(path.join(roots[0], 'server.env')), TASKDAG_DATABASE_URL: url, TASKDAG_SERVER_OWNER_LEASE_MS: String(LEASE_MS) };
  const servers = await Promise.all(roots.map((root) => startServer(path.join(root, 'server.json'), env)));
  running = servers;
  const bearer = (await call(servers[0].port, null, 'POST', '/v1/auth/login', { password: env.TASKDAG_SERVER_PASSWORD })).body.bearer;
  const op = (server, operation, args, headers = {}) => call(server.port, bearer, 'POST', `/v1/projects/f/ops/${operation}`, { args, agent: 'alice' }, headers);
  await op(servers[0], 'init', {});
  await op(servers[0], 'add-initiative', { name: 'core' });
  await op(servers[1], 'add-task', { id: 'T-1', initiative: 'core', title: 't', body: '', acceptance: 'ok', blocked_by: [] });
  const pool = openPool(url);
  const address = (await pool.query("SELECT p.address FROM taskdag_owners o JOIN taskdag_processes p ON p.id = o.process WHERE o.project = 'f'")).rows[0].address;
  await pool.end();
  const ownerIndex = servers.findIndex((server) => address === `http://127.0.0.1:${server.port}`);
  const [dead, survivor] = [servers[ownerIndex], servers[1 - ownerIndex]];
  const outcome = mode === 'kill' ? await killUnderLoad(dead, survivor, op) : mode === 'pause' ? await pauseOnce(dead, survivor, op) : await forwardingCost(dead, survivor, op);
  if (dead.signalCode !== 'SIGKILL') dead.kill('SIGCONT');
  // Stopped as systemd would (profiles, BENCH_SERVER_NODE_ARGS, are written then).
  await Promise.all(servers.filter((server) => server.exitCode === null && server.signalCode === null).map((server) => new Promise((resolve) => (server.once('exit', resolve), server.kill('SIGTERM')))));
  running = [];
  return outcome;
}

async function killUnderLoad(owner, survivor, op) {
  let killedAt = 0;
  let firstAfter = 0;
  let worstWait = 0;
  let going = true;
  const agents = Array.from({ length: 8 }, async (_, agent) => {
    for (let index = 0; going; index++) {
      const sent = performance.now();
      const answer = await op(survivor, 'add-note', { id: 'T-1', text: `n-${agent}-${index}` });
      const now = performance.now();
      if (answer.status !== 200) throw new Error(`the survivor failed a request: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (killedAt > 0 && sent > killedAt && firstAfter === 0) firstAfter = now;
      if (killedAt > 0 && sent <= killedAt && now > killedAt) worstWait = Math.max(worstWait, now - sent);
    }
  });
  await sleep(1_000);
  killedAt = performance.now();
  owner.kill('SIGKILL');
  await sleep(1_000);
  going = false;
  await Promise.all(agents);
  return { takeover_ms: Math.round(firstAfter - killedAt), worst_wait_ms: Math.round(worstWait) };
}

async function pauseOnce(owner, survivor, op) {
  owner.kill('SIGSTOP');
  const sent = performance.now();
  const answer = await op(survivor, 'add-note', { id: 'T-1', text: 'after the pause' });
  if (answer.status !== 200) throw new Error(`the survivor failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { takeover_ms: Math.round(performance.now() - sent) };
}

/** Server CPU (both processes) per mutation, sent to the owner and forwarded, in interleaved rounds: the medians. */
async function forwardingCost(owner, other, op) {
  const rounds = { direct: [], forwarded: [] };
  for (let round = 0; round < 6; round++) {
    const [kind, target] = round % 2 === 0 ? ['direct', owner] : ['forwarded', other];
    const before = cpuMsOf(owner.pid) + cpuMsOf(other.pid);
    await Promise.all(
      Array.from({ length: 8 }, async (_, agent) => {
        for (let index = 0; index < 50; index++) {
          // With a request id, as a linked checkout sends every mutation: what is compared is the forward alone.
          const id = `T-${round}-${agent}-${index}`;
          const answer = await op(target, 'add-task', { id, initiative: 'core', title: 't', body: '', acceptance: 'ok', blocked_by: [] }, { 'Idempotency-Key': id });
          if (answer.status !== 200) throw new Error(`${kind}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }),
    );
    rounds[kind].push(((cpuMsOf(owner.pid) + cpuMsOf(other.pid) - before) * 1000) / 400);
  }
  const median = (values) => Math.round(values.sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  return { direct_us: median(rounds.direct), forwarded_us: median(rounds.forwarded) };
}

function markdown() {
  const row = (mode, what) => {
    const values = results[mode].map((result) => result.takeover_ms).sort((a, b) => a - b);
    const worst = results[mode].map((result) => result.worst_wait_ms).filter((value) => value !== undefined);
    return `| ${what} | ${values.length} | ${values[Math.floor(values.length / 2)]} | ${values.at(-1)} | ${worst.length ? Math.max(...worst) : '-'} |`;
  };
  return [
    `Two server processes on one PostgreSQL database, TASKDAG_SERVER_OWNER_LEASE_MS=${LEASE_MS}, ${os.cpus().length} cores, load ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}.`,
    '',
    '| the owner | trials | takeover, median ms | takeover, max ms | longest wait of a request in flight, ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('kill', 'SIGKILL under load (8 agents through the other process)'),
    row('pause', 'SIGSTOP (paused past its lease)'),
    '',
    '| a mutation | server CPU µs, median of the trials (both processes) |',
    '| --- | ---: |',
    `| sent to the owner | ${middle(results.forward.map((result) => result.direct_us))} |`,
    `| sent to the other process, forwarded | ${middle(results.forward.map((result) => result.forwarded_us))} |`,
    '',
  ].join('\n');
}

function middle(values) {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
}
