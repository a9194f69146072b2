import { expect } from 'chai';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openEvents } from '../support/api-server.js';
import { Sandbox } from '../support/cli.js';
import { loginAt, seedSession } from '../support/linked-server.js';
import { CLUSTER_PASSWORD, freshDatabase, privateCluster, testPostgres, type TestCluster } from '../support/postgres.js';
import { envFileEntries, initServerRoot, login, request, session, startServer, type HttpAnswer, type RunningServer } from '../support/server-process.js';

const task = (id: string) => ({ id, initiative: 'core', title: id, body: '', acceptance: 'ok', blocked_by: [] });
const WIP_LIMIT = path.resolve(__dirname, '../../../examples/plugins/wip-limit.js');

/** A server root of the real `server init --store postgresql`, sharing `envFrom`'s password when given, its env file naming `url`. */
async function postgresRoot(sandbox: Sandbox, name: string, url: string, envFrom?: string): Promise<{ config: string; envFile: string }> {
  const { root, config } = await initServerRoot(sandbox, name, ['--store', 'postgresql']);
  // Every process runs the same plugins, from its own server.json (docs/plugins.md).
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), plugins: { 'wip-limit': WIP_LIMIT } }));
  const envFile = path.join(root, 'server.env');
  if (envFrom) copyFileSync(envFrom, envFile);
  else appendFileSync(envFile, `TASKDAG_DATABASE_URL=${url}\n`);
  return { config, envFile };
}

describe('several server processes on one PostgreSQL database (issue 15)', function () {
  this.timeout(120_000);
  const sandbox = new Sandbox();
  let url: string;
  let roots: { config: string; envFile: string }[];
  let servers: RunningServer[];
  let password: string;
  let bearer: string;

  const op = (server: RunningServer, project: string, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice', token = bearer): Promise<HttpAnswer> =>
    request(server.origin, 'POST', `/v1/projects/${project}/ops/${operation}`, { headers: { Authorization: `Bearer ${token}` }, body: { args, agent } });
  const ok = async (server: RunningServer, project: string, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') => {
    const answer = await op(server, project, operation, args, agent);
    expect(answer.status, `${operation}: ${answer.text}`).to.equal(200);
    return answer.json;
  };
  const start = (index: number) => startServer(sandbox, roots[index]!.config, envFileEntries(roots[index]!.envFile));

  before(async () => {
    url = freshDatabase();
    const first = await postgresRoot(sandbox, 'srv-a', url);
    roots = [first, await postgresRoot(sandbox, 'srv-b', url, first.envFile)];
    password = envFileEntries(first.envFile).TASKDAG_SERVER_PASSWORD!;
    servers = [await start(0), await start(1)];
    bearer = (await login(servers[0]!.origin, password)).json.bearer;
  });
  after(async () => {
    for (const server of servers ?? []) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('server init writes store postgresql into server.json and no connection string anywhere but server.env', async () => {
    const config = JSON.parse(readFileSync(roots[0]!.config, 'utf8'));
    expect(config.store).to.equal('postgresql');
    expect(readFileSync(roots[0]!.config, 'utf8')).not.to.include('postgresql://');
    expect(readFileSync(roots[0]!.envFile, 'utf8')).to.include(`TASKDAG_DATABASE_URL=${url}`);
  });

  it('server doctor checks the connection and the schema version, never showing the connection string', async () => {
    const result = await sandbox.run(['server', 'doctor', '--config', roots[0]!.config]);
    expect(result.code, result.stdout).to.equal(0);
    expect(result.json.findings.filter((finding: { code: string }) => finding.code.startsWith('DATABASE'))).to.deep.equal([]);
    expect(result.stdout + result.stderr).not.to.include(CLUSTER_PASSWORD);
  });

  it('a bearer granted by one process is accepted by every process', async () => {
    for (const server of servers) expect((await session(server.origin, bearer)).status).to.equal(200);
    const other = (await login(servers[1]!.origin, password)).json.bearer;
    expect((await session(servers[0]!.origin, other)).status).to.equal(200);
  });

  it('32 racing claims split across two processes: exactly one winner, seen by both', async () => {
    await ok(servers[0]!, 'race', 'init', {}, null);
    await ok(servers[0]!, 'race', 'add-initiative', { name: 'core' });
    await ok(servers[1]!, 'race', 'add-task', task('T-1'));
    const answers = await Promise.all(Array.from({ length: 32 }, (_, index) => op(servers[index % 2]!, 'race', 'take', { id: 'T-1' }, `agent-${index}`)));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).to.have.length(1);
    expect(new Set(answers.filter((answer) => answer.status !== 200).map((answer) => answer.json.error.code))).to.deep.equal(new Set(['ALREADY_CLAIMED']));
    const winner = answers.indexOf(winners[0]!);
    for (const server of servers) {
      const shown = await ok(server, 'race', 'show', { id: 'T-1' }, null);
      expect(shown.node.claim.by).to.equal(`agent-${winner}`);
    }
  });

  it('a next --wait sent to the process that does not own the project, whose client goes away, claims nothing: the request behind it gets the task the next accept readies', async () => {
    await ok(servers[0]!, 'gone', 'init', {}, null);
    await ok(servers[0]!, 'gone', 'add-initiative', { name: 'core' });
    await ok(servers[0]!, 'gone', 'add-task', task('T-first'));
    await ok(servers[0]!, 'gone', 'add-task', { ...task('T-then'), blocked_by: ['T-first'] });
    await ok(servers[0]!, 'gone', 'take', { id: 'T-first' });
    // Sent to the process that does not own the project: it waits there, and forwards the claim
    // when a task is ready. Its client goes away while it waits.
    const owner = (await op(servers[0]!, 'gone', 'add-note', { id: 'T-first', text: 'x' })).headers['x-taskdag-owner'];
    const other = servers.find((server) => server.origin !== owner)!;
    const dying = http.request(`${other.origin}/v1/projects/gone/ops/next`, { method: 'POST', agent: false, headers: { 'X-Taskdag-Protocol-Version': '1', 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` } });
    dying.on('error', () => undefined);
    dying.end(JSON.stringify({ args: { wait: 60 }, agent: 'dies' }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    dying.destroy();
    const behind = op(other, 'gone', 'next', { wait: 15 }, 'carol');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await ok(servers[0]!, 'gone', 'submit', { id: 'T-first', note: 'done' });
    await ok(servers[0]!, 'gone', 'accept', { id: 'T-first' }, 'bob');
    const answer = await behind;
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.node).to.include({ id: 'T-then', status: 'in_progress' });
    expect(answer.json.node.claim.by).to.equal('carol');
  });

  it('a live-event subscriber on one process sees the commits made through another; the commits of a project nobody follows notify nobody (schema 11)', async () => {
    for (const project of ['live', 'quiet']) {
      await ok(servers[0]!, project, 'init', {}, null);
      await ok(servers[0]!, project, 'add-initiative', { name: 'core' });
    }
    const notified: string[] = [];
    const pg = await import('pg');
    const listening = new pg.default.Client({ connectionString: url });
    await listening.connect();
    listening.on('notification', (message) => notified.push((JSON.parse(message.payload!) as { project: string }).project));
    await listening.query('LISTEN taskdag_revisions');
    const stream = await openEvents(servers[1]!.origin, bearer, 'live');
    try {
      // The board's process says it hears 'live' just after the stream opens (a commit before that is announced to it instead).
      const deadline = Date.now() + 10_000;
      while (!(await listening.query("SELECT notify FROM taskdag_owners WHERE project = 'live'")).rows[0]?.notify && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await ok(servers[0]!, 'quiet', 'add-task', task('T-1'));
      const { revision } = (await ok(servers[0]!, 'live', 'add-task', task('T-1'))).node;
      const state = await ok(servers[0]!, 'live', 'state', {}, null);
      await stream.waitFor((event) => event.event === 'revision' && event.id === String(state.revision));
      expect(revision).to.be.a('number');
      await ok(servers[0]!, 'quiet', 'add-task', task('T-2'));
      await listening.query('SELECT 1');
      expect(notified.filter((project) => project === 'live'), 'the followed project').to.deep.equal(['live']);
      expect(notified.filter((project) => project === 'quiet'), 'the project nobody follows').to.deep.equal([]);
    } finally {
      stream.close();
      await listening.end();
    }
  });

  it('a SIGKILL of one process in the middle of commits loses no acknowledged mutation; its restart serves them all', async () => {
    await ok(servers[0]!, 'crash', 'init', {}, null);
    await ok(servers[0]!, 'crash', 'add-initiative', { name: 'core' });
    const acknowledged: string[] = [];
    let cutOff = 0;
    const victim = servers[0]!;
    // Sixteen agents each writing one task after another: whenever the kill lands, commits are in flight.
    const agents = Array.from({ length: 16 }, async (_, agent) => {
      for (let index = 0; ; index++) {
        const id = `T-${agent}x${index}`;
        const answer = await op(victim, 'crash', 'add-task', task(id)).catch(() => null);
        if (answer?.status !== 200) return void (cutOff += 1);
        acknowledged.push(id);
      }
    });
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    await victim.stop('SIGKILL');
    await Promise.all(agents);
    expect(cutOff).to.equal(16);
    const seen = await ok(servers[1]!, 'crash', 'state', {}, null);
    for (const id of acknowledged) expect(seen.nodes, id).to.have.property(id);
    servers[0] = await start(0);
    const again = await ok(servers[0]!, 'crash', 'state', {}, null);
    expect(Object.keys(again.nodes).sort()).to.deep.equal(Object.keys(seen.nodes).sort());
    expect(again.revision).to.equal(seen.revision);
  });

  it('a plugin pushed through one process is enforced by both: racing takes past a WIP limit of one have one winner, the rest PLUGIN_REFUSED', async () => {
    // A checkout installs wip-limit (examples/plugins) locally, then pushes the project, plugin and data, to the first process.
    const client = new Sandbox();
    try {
      await client.ok(['link', servers[0]!.origin]);
      await loginAt(client, password);
      await client.ok(['init']); // provisions the project on the server, pristine
      const linked = readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8');
      const project = JSON.parse(linked).project_id as string;
      writeFileSync(path.join(client.checkout, '.taskdag.json'), JSON.stringify({ project_id: project }));
      await client.ok(['init']);
      await client.ok(['add-initiative', 'core', '--as', 'alice']);
      for (let index = 1; index <= 8; index++) {
        await client.ok(['add-task', `T-${index}`, '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice']);
      }
      await client.ok(['plugin', 'add', WIP_LIMIT, '--data', '{"limit":1}', '--as', 'alice']);
      writeFileSync(path.join(client.checkout, '.taskdag.json'), linked);
      await client.ok(['push', '--as', 'alice']);

      // The second process never saw the push: it reads the plugin table from the database.
      const before = await ok(servers[1]!, project, 'state', {}, null);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => op(servers[index % 2]!, project, 'take', { id: `T-${index + 1}` }, 'bob')));
      const winners = answers.filter((answer) => answer.status === 200);
      expect(winners, answers.map((answer) => answer.text).join('\n')).to.have.length(1);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expect(refused.json.error, refused.text).to.deep.include({ code: 'PLUGIN_REFUSED' });
        expect(refused.json.error.details).to.include({ plugin: 'wip-limit', operation: 'take', agent: 'bob' });
      }
      // One commit, the winner's; every refusal left the state as it was, on both processes.
      for (const server of servers) {
        const after = await ok(server, project, 'state', {}, null);
        expect(after.revision).to.equal(before.revision + 1);
        expect(after.log.filter((entry: { op: string }) => entry.op === 'take')).to.have.length(1);
      }
      const context = await ok(servers[1]!, project, 'context', { id: 'T-8' }, 'bob');
      expect(context.allowed_actions).not.to.include('take');
    } finally {
      client.remove();
    }
  });

  it('never prints the connection string or its password', () => {
    for (const server of servers) {
      const { stdout, stderr } = server.output();
      expect(stdout + stderr).not.to.include(CLUSTER_PASSWORD);
      expect(stdout + stderr).not.to.include(testPostgres().dir);
    }
  });

  it('a password rotation through one process ends every session on every process', async () => {
    const other = (await login(servers[1]!.origin, password)).json.bearer;
    await servers[0]!.stop('SIGTERM');
    await sandbox.ok(['server', 'init', '--root', path.dirname(roots[0]!.config), '--unit', 'none', '--rotate-password']);
    // The preflight of spec 5.5 says what the start will do.
    const preflight = await sandbox.ok(['server', 'doctor', '--config', roots[0]!.config]);
    expect(preflight.findings.map((finding: { code: string }) => finding.code)).to.include('PASSWORD_ROTATION_PENDING');
    servers[0] = await start(0);
    for (const server of servers) {
      for (const token of [bearer, other]) {
        const answer = await session(server.origin, token);
        expect([answer.status, answer.json.error.code]).to.deep.equal([401, 'AUTH_INVALID']);
      }
    }
    const rotated = envFileEntries(roots[0]!.envFile).TASKDAG_SERVER_PASSWORD!;
    expect((await login(servers[1]!.origin, password)).status).to.equal(401);
    const fresh = (await login(servers[1]!.origin, rotated)).json.bearer;
    expect((await session(servers[0]!.origin, fresh)).status).to.equal(200);
  });

  it('a host restarted with its old server.env after a rotation elsewhere is refused with the next step, and the rotation stands (issue 23)', async () => {
    const rotated = envFileEntries(roots[0]!.envFile).TASKDAG_SERVER_PASSWORD!;
    const fresh = (await login(servers[0]!.origin, rotated)).json.bearer;
    await servers[1]!.stop('SIGTERM');
    const doctor = await sandbox.run(['server', 'doctor', '--config', roots[1]!.config]);
    expect([doctor.code, doctor.json.error?.code]).to.deep.equal([1, 'SERVER_PREFLIGHT_FAILED']);
    expect(doctor.json.error.details.findings.find((finding: { code: string }) => finding.code === 'PASSWORD_STALE'), doctor.stdout).to.deep.include({ severity: 'error' });
    const stale = await sandbox.run(['server', 'run', roots[1]!.config], { env: envFileEntries(roots[1]!.envFile) });
    expect([stale.code, stale.json?.error?.code], stale.stdout + stale.stderr).to.deep.equal([1, 'SERVER_PASSWORD_STALE']);
    expect(stale.json.error.details).to.deep.equal({ generation: 1, database_generation: 2 });
    expect(stale.json.error.message).to.include('copy server.env from the host that rotated');
    expect(stale.stdout + stale.stderr).not.to.include(password).and.not.to.include(rotated);
    // Nothing was rolled back: the rotated password and its sessions still hold, the old one still fails.
    expect((await session(servers[0]!.origin, fresh)).status).to.equal(200);
    expect((await login(servers[0]!.origin, password)).status).to.equal(401);
    // The next step works: with the rotated server.env the host starts and serves the same sessions.
    copyFileSync(roots[0]!.envFile, roots[1]!.envFile);
    servers[1] = await start(1);
    expect((await session(servers[1]!.origin, fresh)).status).to.equal(200);
  });
});

describe('a PostgreSQL server that cannot start, and its preflight (issue 15)', function () {
  this.timeout(120_000);
  const sandbox = new Sandbox();
  after(() => sandbox.remove());

  const findings = (json: any): Record<string, string> =>
    Object.fromEntries((json.findings ?? json.error.details.findings).map((finding: { code: string; severity: string }) => [finding.code, finding.severity]));

  /** `server doctor` and `server run` on a setup whose env file names `url` (or no connection string at all). */
  async function attempt(name: string, url: string | null, serve = true) {
    const { root, config } = await initServerRoot(sandbox, name, ['--store', 'postgresql']);
    const envFile = path.join(root, 'server.env');
    if (url !== null) appendFileSync(envFile, `TASKDAG_DATABASE_URL=${url}\n`);
    const doctor = await sandbox.run(['server', 'doctor', '--config', config]);
    // Only where it must fail: a server that starts would run until stopped.
    const run = serve ? await sandbox.run(['server', 'run', config], { env: envFileEntries(envFile) }) : doctor;
    for (const result of [doctor, run]) expect(result.stdout + result.stderr).not.to.include(CLUSTER_PASSWORD);
    return { doctor, run };
  }

  it('no connection string: the preflight names the line to add; server run refuses with MISSING_FIELD', async () => {
    const { doctor, run } = await attempt('no-url', null);
    expect([doctor.code, doctor.json.error.code]).to.deep.equal([1, 'SERVER_PREFLIGHT_FAILED']);
    expect(findings(doctor.json)).to.include({ DATABASE_URL_MISSING: 'error' });
    expect([run.code, run.json.error.code, run.json.error.details.field]).to.deep.equal([1, 'MISSING_FIELD', 'TASKDAG_DATABASE_URL']);
  });

  it('an unreachable database: DATABASE_UNREACHABLE, and server run fails with STORAGE_ERROR before listening', async () => {
    const nowhere = `postgresql://taskdag:${CLUSTER_PASSWORD}@${encodeURIComponent(path.join(sandbox.root, 'no-socket'))}:5432/taskdag`;
    const { doctor, run } = await attempt('unreachable', nowhere);
    expect(findings(doctor.json)).to.include({ DATABASE_UNREACHABLE: 'error' });
    expect([run.code, run.json.error.code]).to.deep.equal([1, 'STORAGE_ERROR']);
  });

  it('an empty database is only a warning (server run migrates it); a newer schema is refused by both, and left as it was', async () => {
    const url = freshDatabase();
    const empty = await attempt('empty', url, false);
    expect(empty.doctor.code).to.equal(0);
    expect(findings(empty.doctor.json)).to.include({ DATABASE_SCHEMA_BEHIND: 'warning' });
    const database = new URL(url).pathname.slice(1);
    testPostgres().sql(database, 'CREATE TABLE taskdag_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); INSERT INTO taskdag_schema (version) VALUES (999)');
    const newer = await attempt('newer', url);
    expect(findings(newer.doctor.json)).to.include({ DATABASE_SCHEMA_NEWER: 'error' });
    expect([newer.run.code, newer.run.json.error.code, newer.run.json.error.details.cause]).to.deep.equal([1, 'STORAGE_ERROR', 'ESCHEMA']);
    expect(testPostgres().sql(database, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'taskdag_%'").trim()).to.equal('1');
  });

  it('a verifier row damaged in the database: the preflight reports AUTH_RECORD_CORRUPT and server run refuses, both with the recovery (issue 23)', async () => {
    const url = freshDatabase();
    const root = await postgresRoot(sandbox, 'damaged', url);
    const env = envFileEntries(root.envFile);
    await (await startServer(sandbox, root.config, env)).stop('SIGTERM');
    const database = new URL(url).pathname.slice(1);
    testPostgres().sql(database, "UPDATE taskdag_auth SET verifier = json_build_object('kdf', 'scrypt', 'n', 3, 'r', 8, 'p', 1, 'salt', verifier->>'salt', 'hash', verifier->>'hash')");
    const doctor = await sandbox.run(['server', 'doctor', '--config', root.config]);
    expect(findings(doctor.json)).to.include({ AUTH_RECORD_CORRUPT: 'error' });
    const run = await sandbox.run(['server', 'run', root.config], { env });
    expect([run.code, run.json.error.code, run.json.error.details.path]).to.deep.equal([1, 'STORAGE_ERROR', 'postgresql:taskdag_auth']);
    for (const advice of [doctor.json.error.details.findings.find((finding: { code: string }) => finding.code === 'AUTH_RECORD_CORRUPT').fix, run.json.error.details.recovery]) {
      expect(advice).to.include('DELETE FROM taskdag_auth');
    }
  });
});

describe('a PostgreSQL restart and outage under load (issue 23)', function () {
  this.timeout(180_000);
  const sandbox = new Sandbox();
  let cluster: TestCluster;
  let server: RunningServer;
  let password: string;
  let bearer: string;

  const op = (operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') =>
    request(server.origin, 'POST', `/v1/projects/p/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });
  /** Answers that are not 200, as `status code` lines: during an outage each must be a STORAGE_ERROR. */
  const failuresOf = (answers: HttpAnswer[]) => answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.json?.error?.code}`);

  before(async () => {
    cluster = privateCluster();
    const root = await postgresRoot(sandbox, 'outage', cluster.createDatabase('outage'));
    password = envFileEntries(root.envFile).TASKDAG_SERVER_PASSWORD!;
    server = await startServer(sandbox, root.config, envFileEntries(root.envFile));
    bearer = (await login(server.origin, password)).json.bearer;
    expect((await op('init', {}, null)).status).to.equal(200);
    expect((await op('add-initiative', { name: 'core' })).status).to.equal(200);
  });
  after(async () => {
    await cluster?.start().catch(() => undefined);
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  for (const mode of ['immediate', 'fast'] as const) {
  it(`a restart (${mode}) in the middle of writes and reads: every failure is STORAGE_ERROR, never an internal error, and nothing acknowledged is lost`, async () => {
    const acknowledged: string[] = [];
    const answers: HttpAnswer[] = [];
    let running = true;
    // Eight agents, each alternating a write and a read, so both are in flight whenever the database goes.
    const agents = Array.from({ length: 8 }, async (_, agent) => {
      for (let index = 0; running; index++) {
        const id = `T-${mode}${agent}x${index}`;
        const written = await op('add-task', task(id));
        answers.push(written, await op('status', {}, null));
        if (written.status === 200) acknowledged.push(id);
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    await cluster.restart(mode);
    const recovered = acknowledged.length;
    // The load goes on until writes are acknowledged again after the restart.
    while (acknowledged.length < recovered + 40) await new Promise((resolve) => setTimeout(resolve, 5));
    running = false;
    await Promise.all(agents);
    expect(new Set(failuresOf(answers))).to.satisfy((codes: Set<string>) => [...codes].every((code) => code === '500 STORAGE_ERROR'), [...new Set(failuresOf(answers))].join(', '));
    const state = (await op('state', {}, null)).json;
    for (const id of acknowledged) expect(state.nodes, id).to.have.property(id);
    expect(server.output().stderr).not.to.include('internal error');
  });
  }

  it('while the database is down: reads, writes and logins answer STORAGE_ERROR; failed logins are not counted, so the right password works once it is back', async () => {
    await cluster.stop('fast');
    try {
      const during = [await op('status', {}, null), await op('add-task', task('T-down')), await session(server.origin, bearer)];
      // More wrong-password logins than the rate limit allows (10 a minute): none of them could be checked.
      for (let attempt = 0; attempt < 12; attempt++) during.push(await login(server.origin, 'not-the-password'));
      expect(failuresOf(during)).to.deep.equal(Array(during.length).fill('500 STORAGE_ERROR'));
    } finally {
      await cluster.start();
    }
    const again = await login(server.origin, password);
    expect([again.status, again.json.error?.code]).to.deep.equal([200, undefined]);
    expect((await op('show', { id: 'T-down' }, null)).json.error.code).to.equal('NODE_NOT_FOUND');
  });
});

describe('one owning process per project: forwarding and failover (issue 25)', function () {
  this.timeout(180_000);
  const sandbox = new Sandbox();
  /** Short, so a paused owner's lease runs out within the test. */
  const LEASE_MS = 2_000;
  let database: string;
  let roots: { config: string; envFile: string }[];
  let servers: RunningServer[];
  let bearer: string;

  const start = (index: number) => startServer(sandbox, roots[index]!.config, { ...envFileEntries(roots[index]!.envFile), TASKDAG_SERVER_OWNER_LEASE_MS: String(LEASE_MS) });
  const op = (server: RunningServer, project: string, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') =>
    request(server.origin, 'POST', `/v1/projects/${project}/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });
  const ok = async (server: RunningServer, project: string, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') => {
    const answer = await op(server, project, operation, args, agent);
    expect(answer.status, `${operation}: ${answer.text}`).to.equal(200);
    return answer.json;
  };
  /** Which of the servers owns `project`, as the database says (each advertises the origin it listens on). */
  const ownerOf = (project: string): number => {
    const address = testPostgres().sql(database, `SELECT p.address FROM taskdag_owners o JOIN taskdag_processes p ON p.id = o.process WHERE o.project = '${project}'`).trim();
    const index = servers.findIndex((server) => server.origin === address);
    expect(index, `the owner of ${project}: ${address}`).to.be.at.least(0);
    return index;
  };
  /** A project with initiative core and task T-1, and its owner. */
  const seeded = async (project: string): Promise<{ owner: number; other: number }> => {
    await ok(servers[0]!, project, 'init', {}, null);
    await ok(servers[0]!, project, 'add-initiative', { name: 'core' });
    await ok(servers[1]!, project, 'add-task', task('T-1'));
    const owner = ownerOf(project);
    return { owner, other: 1 - owner };
  };
  /** Each note's text, counted: a mutation applied twice would show twice. */
  const noteCounts = async (server: RunningServer, project: string): Promise<Map<string, number>> => {
    const shown = await ok(server, project, 'show', { id: 'T-1' }, null);
    const counts = new Map<string, number>();
    for (const note of shown.node.notes as { text: string }[]) counts.set(note.text, (counts.get(note.text) ?? 0) + 1);
    return counts;
  };

  before(async () => {
    const url = freshDatabase();
    database = new URL(url).pathname.slice(1);
    const first = await postgresRoot(sandbox, 'own-a', url);
    roots = [first, await postgresRoot(sandbox, 'own-b', url, first.envFile)];
    servers = [await start(0), await start(1)];
    bearer = (await login(servers[0]!.origin, envFileEntries(first.envFile).TASKDAG_SERVER_PASSWORD!)).json.bearer;
  });
  after(async () => {
    for (const server of servers ?? []) {
      if (server.child.signalCode === 'SIGSTOP') process.kill(server.child.pid!, 'SIGCONT');
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    }
    sandbox.remove();
  });

  it('a project has one owner: mutations sent to the other process are served by it, with the answer the owner gave', async () => {
    const { owner, other } = await seeded('one');
    const taken = await ok(servers[other]!, 'one', 'take', { id: 'T-1' }, 'bob');
    expect(taken.node.claim.by).to.equal('bob');
    expect(ownerOf('one')).to.equal(owner);
    // The request id of the client travels with the forwarded request: its retry through the owner applies nothing again.
    const keyed = (server: RunningServer) =>
      request(server.origin, 'POST', '/v1/projects/one/ops/add-note', { headers: { Authorization: `Bearer ${bearer}`, 'Idempotency-Key': 'note-once' }, body: { args: { id: 'T-1', text: 'once' }, agent: 'alice' } });
    const first = await keyed(servers[other]!);
    const retry = await keyed(servers[owner]!);
    expect([first.status, retry.status]).to.deep.equal([200, 200]);
    expect(retry.json).to.deep.equal(first.json);
    expect((await noteCounts(servers[owner]!, 'one')).get('once')).to.equal(1);
  });

  it('a next --wait sent to the other process waits at the owner past the lease bounds of a forward, and gets the task made ready meanwhile', async () => {
    const { owner, other } = await seeded('waits');
    await ok(servers[owner]!, 'waits', 'take', { id: 'T-1' }, 'alice');
    const started = Date.now();
    // Longer than a forward's try (one lease) and its give-up (three): the owner holds it waiting.
    const waiting = op(servers[other]!, 'waits', 'next', { wait: 10 }, 'bob');
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS + 500));
    await ok(servers[owner]!, 'waits', 'add-task', task('T-2'));
    const answer = await waiting;
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.node).to.include({ id: 'T-2' });
    expect(answer.json.node.claim.by).to.equal('bob');
    expect(Date.now() - started).to.be.below(10_000);
    const status = await ok(servers[owner]!, 'waits', 'status', {}, null);
    expect(status.summary).to.include({ in_progress: 2, ready: 0 });
  });

  it('a next --wait forwarded to the owner, whose client goes away, claims nothing there: the request behind it gets the task made ready next', async () => {
    const { owner, other } = await seeded('forsaken');
    await ok(servers[owner]!, 'forsaken', 'take', { id: 'T-1' }, 'alice');
    // Its client goes away while the owner holds the forwarded request waiting.
    const dying = http.request(`${servers[other]!.origin}/v1/projects/forsaken/ops/next`, { method: 'POST', agent: false, headers: { 'X-Taskdag-Protocol-Version': '1', 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` } });
    dying.on('error', () => undefined);
    dying.end(JSON.stringify({ args: { wait: 60 }, agent: 'dies' }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    dying.destroy();
    const behind = op(servers[other]!, 'forsaken', 'next', { wait: 15 }, 'carol');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await ok(servers[owner]!, 'forsaken', 'add-task', task('T-2'));
    const answer = await behind;
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.node).to.include({ id: 'T-2', status: 'in_progress' });
    expect(answer.json.node.claim.by).to.equal('carol');
  });

  it("every answer names the project's owner (X-Taskdag-Owner), on the owner and on the other process, so a client can send its next requests there", async () => {
    const { owner, other } = await seeded('hinted');
    const ownerOrigin = servers[owner]!.origin;
    // A mutation served by the owner, one forwarded to it, and reads on either process.
    for (const [server, operation, args, agent] of [
      [servers[owner]!, 'add-note', { id: 'T-1', text: 'on the owner' }, 'alice'],
      [servers[other]!, 'add-note', { id: 'T-1', text: 'forwarded' }, 'alice'],
      [servers[owner]!, 'show', { id: 'T-1' }, null],
      [servers[other]!, 'show', { id: 'T-1' }, null],
    ] as const) {
      const answer = await op(server, 'hinted', operation, args, agent);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.headers['x-taskdag-owner'], `${operation} through ${server.origin}`).to.equal(ownerOrigin);
    }
  });

  it('a linked checkout trusting the processes (TASKDAG_REMOTE_TRUSTED_OWNERS) sends its next commands straight to the owner: they are served with the process it is linked to paused', async () => {
    const { owner, other } = await seeded('followed');
    const client = new Sandbox();
    const linked = servers[other]!;
    try {
      mkdirSync(client.checkout, { recursive: true });
      writeFileSync(path.join(client.checkout, '.taskdag.json'), JSON.stringify({ project_id: 'followed', backend: { type: 'http', url: linked.origin } }));
      seedSession(client, linked.origin, bearer);
      const trusting = { TASKDAG_REMOTE_TRUSTED_OWNERS: servers.map((server) => server.origin).join(','), TASKDAG_REMOTE_TIMEOUT_MS: '3000', TASKDAG_REMOTE_RETRIES: '0' };
      await client.ok(['add-note', 'T-1', 'through the linked process', '--as', 'alice'], { env: trusting });
      const remembered = JSON.parse(readFileSync(path.join(client.home, '.taskdag', 'remote-owners.json'), 'utf8'));
      expect(remembered.owners).to.deep.equal({ [`${linked.origin} followed`]: servers[owner]!.origin });
      process.kill(linked.child.pid!, 'SIGSTOP');
      try {
        await client.ok(['add-note', 'T-1', 'straight to the owner', '--as', 'alice'], { env: trusting });
        expect((await client.ok(['show', 'T-1'], { env: trusting })).node.notes.map((note: { text: string }) => note.text)).to.include('straight to the owner');
        // Without the trust, the same checkout's command goes to the paused process, and times out.
        const { TASKDAG_REMOTE_TRUSTED_OWNERS: _trusted, ...untrusting } = trusting;
        const stuck = await client.run(['show', 'T-1'], { env: untrusting });
        expect([stuck.code, stuck.json.error.code, stuck.json.error.details.cause]).to.deep.equal([1, 'REMOTE_REQUEST_FAILED', 'ETIMEDOUT']);
      } finally {
        process.kill(linked.child.pid!, 'SIGCONT');
      }
    } finally {
      client.remove();
    }
  });

  it('a SIGKILL of the owner mid-load: the other process takes the project over at once and serves every request sent to it, each applied once, its reads seeing each', async () => {
    const { owner, other } = await seeded('killed');
    const survivor = servers[other]!;
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let killedAt = 0;
    let firstAfterKill = 0;
    let running = true;
    // Eight agents on each process, each adding one note after another: half of them are forwarded to the owner.
    const agents = Array.from({ length: 16 }, async (_, agent) => {
      const server = servers[agent % 2]!;
      for (let index = 0; running; index++) {
        const text = `n-${agent}-${index}`;
        const answer = await op(server, 'killed', 'add-note', { id: 'T-1', text }).catch(() => null);
        if (server !== survivor && (answer === null || killedAt > 0)) return; // the killed process's agents stop with it
        if (answer?.status !== 200) {
          failures.push(answer ? `${answer.status} ${answer.text}` : 'no answer');
          continue;
        }
        acknowledged.push(text);
        if (killedAt > 0 && firstAfterKill === 0) firstAfterKill = Date.now();
        if (server !== survivor) continue;
        // A read through the survivor (relayed to the owner while it lives, served there once it is gone) sees the note just acknowledged.
        const read = await op(server, 'killed', 'show', { id: 'T-1' }, null).catch(() => null);
        if (read?.status !== 200) failures.push(read ? `show: ${read.status} ${read.text}` : 'show: no answer');
        else if (!(read.json.node.notes as { text: string }[]).some((note) => note.text === text)) failures.push(`show after ${text}: not there`);
      }
    });
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    killedAt = Date.now();
    await servers[owner]!.stop('SIGKILL');
    const before = acknowledged.length;
    while (acknowledged.length < before + 100) await new Promise((resolve) => setTimeout(resolve, 5));
    running = false;
    await Promise.all(agents);
    const takeoverMs = firstAfterKill - killedAt;
    expect(failures, failures.join('\n')).to.deep.equal([]);
    // The killed process's session ended with it, so its lease was not waited for.
    expect(takeoverMs).to.be.below(LEASE_MS);
    expect(servers[other]!.output().stderr).to.include('took project killed over');
    const counts = await noteCounts(survivor, 'killed');
    for (const text of acknowledged) expect(counts.get(text), text).to.equal(1);
    servers[owner] = await start(owner);
  });

  it("a paused owner (SIGSTOP) past its lease: the other process takes the project over; the former owner's late commits are refused by the fence and served by the new owner", async () => {
    const { owner, other } = await seeded('paused');
    const before = (await ok(servers[other]!, 'paused', 'state', {}, null)).revision;
    const paused = servers[owner]!;
    process.kill(paused.child.pid!, 'SIGSTOP');
    let resumed = false;
    try {
      // Sent to the paused owner: it reads it only when it runs again, still believing it owns the project.
      const late = op(paused, 'paused', 'add-note', { id: 'T-1', text: 'sent to the paused owner' });
      const started = Date.now();
      const served = await op(servers[other]!, 'paused', 'add-note', { id: 'T-1', text: 'sent to the other process' });
      const takeoverMs = Date.now() - started;
      expect(served.status, served.text).to.equal(200);
      // At least until the lease ran out (it was renewed at most a third of it before the pause), at most two tries later.
      expect(takeoverMs).to.be.within((2 * LEASE_MS) / 3, 3 * LEASE_MS);
      expect(ownerOf('paused')).to.equal(other);
      process.kill(paused.child.pid!, 'SIGCONT');
      resumed = true;
      const answer = await late;
      expect(answer.status, answer.text).to.equal(200);
    } finally {
      if (!resumed) process.kill(paused.child.pid!, 'SIGCONT');
    }
    expect(paused.output().stderr).to.include('project paused was taken over by another process');
    const state = await ok(servers[owner]!, 'paused', 'state', {}, null);
    expect(state.revision).to.equal(before + 2);
    expect([...(await noteCounts(servers[owner]!, 'paused')).entries()].sort()).to.deep.equal([
      ['sent to the other process', 1],
      ['sent to the paused owner', 1],
    ]);
    expect(ownerOf('paused')).to.equal(other);
  });
});

describe('an owner the other processes cannot reach (issue 25)', function () {
  this.timeout(120_000);
  const sandbox = new Sandbox();
  const LEASE_MS = 500;
  let servers: RunningServer[] = [];
  let bearer: string;

  after(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('advertises the address server.json names; while that is unreachable and the owner holds its lease, a mutation through another process fails with EOWNER_UNREACHABLE after three leases, changing nothing', async () => {
    const url = freshDatabase();
    const unreachable = await postgresRoot(sandbox, 'cut-a', url);
    // Nothing listens on port 1: the owner is alive (its lease renewed, its session open) but cannot be reached.
    writeFileSync(unreachable.config, JSON.stringify({ ...JSON.parse(readFileSync(unreachable.config, 'utf8')), advertiseUrl: 'http://127.0.0.1:1' }));
    const other = await postgresRoot(sandbox, 'cut-b', url, unreachable.envFile);
    const env: Record<string, string> = { ...envFileEntries(unreachable.envFile), TASKDAG_SERVER_OWNER_LEASE_MS: String(LEASE_MS) };
    servers = [await startServer(sandbox, unreachable.config, env), await startServer(sandbox, other.config, env)];
    bearer = (await login(servers[0]!.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
    const op = (server: RunningServer, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') =>
      request(server.origin, 'POST', `/v1/projects/cut/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });
    expect((await op(servers[0]!, 'init', {}, null)).status).to.equal(200);
    expect((await op(servers[0]!, 'add-initiative', { name: 'core' })).status).to.equal(200);
    const database = new URL(url).pathname.slice(1);
    expect(testPostgres().sql(database, "SELECT p.address FROM taskdag_owners o JOIN taskdag_processes p ON p.id = o.process WHERE o.project = 'cut'").trim()).to.equal('http://127.0.0.1:1');
    const before = (await op(servers[1]!, 'state', {}, null)).json.revision;

    const started = Date.now();
    const refused = await op(servers[1]!, 'add-task', task('T-1'));
    expect([refused.status, refused.json.error.code, refused.json.error.details]).to.deep.equal([500, 'STORAGE_ERROR', { cause: 'EOWNER_UNREACHABLE', project: 'cut' }]);
    expect(Date.now() - started).to.be.within(3 * LEASE_MS, 3 * LEASE_MS + 5_000);
    expect((await op(servers[1]!, 'state', {}, null)).json.revision).to.equal(before);
    // The owner itself still serves it.
    expect((await op(servers[0]!, 'add-task', task('T-1'))).status).to.equal(200);
  });

  it("relays the owner's refusal of a bearer as it is: 401 AUTH_INVALID with its WWW-Authenticate challenge, changing nothing", async () => {
    // The owner advertises a stand-in that refuses every bearer, as an owner does once the session ended there first.
    const forwarded: http.IncomingHttpHeaders[] = [];
    const refusing = http.createServer((incoming, answer) => {
      forwarded.push(incoming.headers);
      incoming.resume().on('end', () => {
        answer.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' });
        answer.end(JSON.stringify({ ok: false, error: { code: 'AUTH_INVALID', message: 'The bearer is not valid: log in again', details: {} } }));
      });
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = freshDatabase();
      const owner = await postgresRoot(sandbox, 'refusing-a', url);
      writeFileSync(owner.config, JSON.stringify({ ...JSON.parse(readFileSync(owner.config, 'utf8')), advertiseUrl: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}` }));
      const other = await postgresRoot(sandbox, 'refusing-b', url, owner.envFile);
      const env = envFileEntries(owner.envFile);
      const owning = await startServer(sandbox, owner.config, env);
      const forwarding = await startServer(sandbox, other.config, env);
      servers.push(owning, forwarding);
      const token = (await login(forwarding.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
      const op = (server: RunningServer, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') =>
        request(server.origin, 'POST', `/v1/projects/refused/ops/${operation}`, { headers: { Authorization: `Bearer ${token}` }, body: { args, agent } });
      expect((await op(owning, 'init', {}, null)).status).to.equal(200);
      expect((await op(owning, 'add-initiative', { name: 'core' })).status).to.equal(200);
      const before = (await op(forwarding, 'state', {}, null)).json.revision;

      const refused = await op(forwarding, 'add-task', task('T-1'));
      expect([refused.status, refused.headers['www-authenticate'], refused.json.error.code]).to.deep.equal([401, 'Bearer', 'AUTH_INVALID']);
      expect(forwarded.map((headers) => headers['x-taskdag-forwarded'])).to.deep.equal(['1']);
      // Read where the project is: the forwarding process now relays its reads to the stand-in too.
      expect((await op(owning, 'state', {}, null)).json.revision).to.equal(before);
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});

describe('bearer checks on several processes while nothing changes (issue 25 item 4)', function () {
  this.timeout(120_000);
  const sandbox = new Sandbox();
  let servers: RunningServer[] = [];

  after(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('bearers checked on two processes for three seconds cost no statement; an operator ending the sessions is heard by both at once', async () => {
    // pg_stat_statements counts what every process sends.
    const cluster = privateCluster(['shared_preload_libraries=pg_stat_statements']);
    const url = cluster.createDatabase('checks');
    cluster.sql('checks', 'CREATE EXTENSION pg_stat_statements');
    const sessionReads = () =>
      Number(cluster.sql('checks', "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ~ '^\\s*SELECT' AND query LIKE '%taskdag_sessions%' AND dbid = (SELECT oid FROM pg_database WHERE datname = 'checks')").trim());
    const first = await postgresRoot(sandbox, 'checks-a', url);
    const second = await postgresRoot(sandbox, 'checks-b', url, first.envFile);
    const env = envFileEntries(first.envFile);
    servers = [await startServer(sandbox, first.config, env), await startServer(sandbox, second.config, env)];
    const bearers = [(await login(servers[0]!.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer, (await login(servers[1]!.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer];
    const statuses = async () => {
      const answers = await Promise.all(servers.flatMap((server) => bearers.map((token) => session(server.origin, token))));
      return answers.map((answer) => answer.status);
    };
    expect(await statuses()).to.deep.equal([200, 200, 200, 200]);
    const found = sessionReads();
    for (const deadline = Date.now() + 3_000; Date.now() < deadline; ) {
      expect(await statuses()).to.deep.equal([200, 200, 200, 200]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(sessionReads() - found, 'session reads while nothing changed').to.equal(0);
    cluster.sql('checks', 'DELETE FROM taskdag_sessions');
    const ended = Date.now();
    while ((await statuses()).some((status) => status !== 401)) {
      // Far sooner than any trusted time: only the notification ends them.
      expect(Date.now() - ended).to.be.below(10_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
