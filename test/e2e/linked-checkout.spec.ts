import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { CliDispatcher } from '../support/cli-dispatcher.js';
import { dispatcherContract } from '../support/dispatcher-contract.js';
import { fileTree } from '../support/file-tree.js';
import { linkedClient, loginAt, seedSession, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { envFileEntries, request } from '../support/server-process.js';
import { runInTerminal } from '../support/terminal.js';

/**
 * A checkout linked to a server (spec 1, 4.5): every operation runs there with the stored bearer
 * and the same JSON as local mode; a failure (no bearer, refused bearer, server down, slow or
 * answering garbage) never falls back to local state and leaves it byte for byte as it was.
 */
describe('a linked checkout (spec 1, 4.5)', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  let client: Sandbox;
  /** Everything the client has on disk: its checkout and its TASKDAG_HOME. */
  const clientFiles = () => fileTree(client.root);
  before(async () => {
    linked = await startLinkedServer();
  });
  after(async () => linked?.close());
  beforeEach(async () => {
    client = await linkedClient(linked);
  });
  afterEach(() => client.remove());

  it('runs reads and mutations on the server with the same JSON as local mode, and keeps nothing locally', async () => {
    const local = new Sandbox();
    try {
      await local.init();
      for (const sandbox of [client, local]) {
        await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
        await sandbox.ok(['add-task', 'T-one', '--initiative', 'core', '--title', 'One', '--body', 'Do it', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice']);
        await sandbox.ok(['take', 'T-one', '--as', 'bob']);
      }
      const comparable = (value: any) => JSON.parse(JSON.stringify(value).replace(/"20\d\d-[^"]*Z"/g, '"<time>"'));
      for (const args of [['show', 'T-one'], ['status'], ['context', 'T-one'], ['search', 'One'], ['initiatives']]) {
        expect(comparable(await client.ok(args)), args.join(' ')).to.deep.equal(comparable(await local.ok(args)));
      }
      const { project_id } = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
      expect(linked.projectsOnDisk()).to.include(project_id);
      expect(Object.keys(fileTree(path.join(client.home, '.taskdag'))).filter((name) => name.startsWith('projects'))).to.deep.equal([]);
    } finally {
      local.remove();
    }
  });

  it('remote init provisions only once, reports no server path, and never warns on loopback', async () => {
    const again = await client.ok(['init']);
    expect(again).to.include({ created: false, checkout: client.checkout });
    expect(again).not.to.have.property('state_dir');
    expect(again).not.to.have.property('warnings');
  });

  it('reads and mutations on a project the server does not hold fail with PROJECT_NOT_FOUND and create nothing', async () => {
    const fresh = await linkedClient(linked, { init: false });
    try {
      const before = linked.projectsOnDisk();
      for (const args of [['status'], ['add-initiative', 'core', '--as', 'alice'], ['batch', '--stdin', '--as', 'alice']]) {
        const result = await fresh.run(args, { input: '{"operations": []}' });
        expect(result.code, args.join(' ')).to.equal(1);
        expect(result.json.error.code, args.join(' ')).to.equal('PROJECT_NOT_FOUND');
      }
      expect(linked.projectsOnDisk()).to.deep.equal(before);
    } finally {
      fresh.remove();
    }
  });

  it('init --force, snapshots, restore and migrate answer REMOTE_UNSUPPORTED_OPERATION, touching nothing', async () => {
    const before = clientFiles();
    for (const args of [['init', '--force', '--as', 'alice'], ['snapshots'], ['restore', 'x', '--as', 'alice'], ['migrate', '--as', 'alice']]) {
      const result = await client.run(args);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.json.error.code, args.join(' ')).to.equal('REMOTE_UNSUPPORTED_OPERATION');
    }
    expect(clientFiles()).to.deep.equal(before);
  });

  it('AUTH_INVALID without a stored bearer (after logout), and no local fallback', async () => {
    await client.ok(['logout']);
    const before = clientFiles();
    const result = await client.run(['status']);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('AUTH_INVALID');
    expect(result.json.error.message).to.include('taskdag login');
    expect(clientFiles()).to.deep.equal(before);
  });

  it('a rotated password refuses every stored bearer with AUTH_INVALID until the client logs in again', async () => {
    await client.ok(['add-initiative', 'core', '--as', 'alice']);
    await linked.server.stop();
    await linked.host.ok(['server', 'init', '--root', linked.root, '--unit', 'none', '--rotate-password']);
    linked.env = envFileEntries(path.join(linked.root, 'server.env'));
    const oldPassword = linked.password;
    linked.password = linked.env.TASKDAG_SERVER_PASSWORD!;
    expect(linked.password).not.to.equal(oldPassword);
    await linked.restart();
    const before = clientFiles();
    const refused = await client.run(['status']);
    expect(refused.json.error.code).to.equal('AUTH_INVALID');
    expect(clientFiles()).to.deep.equal(before);
    const wrong = await runInTerminal(client, ['login'], oldPassword);
    expect(wrong.json.error.code).to.equal('AUTH_INVALID');
    await loginAt(client, linked.password);
    expect(Object.keys((await client.ok(['state'])).initiatives)).to.deep.equal(['core']);
  });

  it('REMOTE_REQUEST_FAILED with the cause when the server is stopped; nothing local changes', async () => {
    await linked.server.stop();
    try {
      const before = clientFiles();
      for (const args of [['status'], ['add-initiative', 'core', '--as', 'alice'], ['init']]) {
        const result = await client.run(args);
        expect(result.code, args.join(' ')).to.equal(1);
        expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
        expect(result.json.error.details.cause).to.equal('ECONNREFUSED');
      }
      expect(clientFiles()).to.deep.equal(before);
    } finally {
      await linked.restart();
    }
  });

  it('REMOTE_REQUEST_FAILED when the server is slow (bounded by TASKDAG_REMOTE_TIMEOUT_MS) or answers garbage', async () => {
    const silent = net.createServer(() => undefined); // accepts, never answers
    const garbage = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>not json'));
    const teapot = http.createServer((_req, res) => res.writeHead(502).end('{"ok": false}'));
    const ports: number[] = [];
    for (const server of [silent, garbage, teapot]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      ports.push((server.address() as net.AddressInfo).port);
    }
    try {
      const cases: [number, string, Record<string, string>][] = [
        [ports[0]!, 'ETIMEDOUT', { TASKDAG_REMOTE_TIMEOUT_MS: '300' }],
        [ports[1]!, 'EBADRESPONSE', {}],
        [ports[2]!, 'EBADRESPONSE', {}],
      ];
      for (const [port, cause, env] of cases) {
        const origin = `http://127.0.0.1:${port}`;
        await client.ok(['link', origin, '--replace=true']);
        seedSession(client, origin);
        const before = clientFiles();
        for (const args of [['status'], ['add-initiative', 'core', '--as', 'alice']]) {
          const result = await client.run(args, { env });
          expect(result.code, `${args.join(' ')} against ${cause}`).to.equal(1);
          expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
          expect(result.json.error.details.cause).to.equal(cause);
        }
        expect(clientFiles()).to.deep.equal(before);
      }
      expect((await client.run(['status'], { env: { TASKDAG_REMOTE_TIMEOUT_MS: 'soon' } })).json.error.code).to.equal('INVALID_ARGUMENT');
    } finally {
      for (const server of [silent, garbage, teapot]) server.close();
      silent.unref();
    }
  });

  it('a request never carries a password and the bearer only in its header', async () => {
    const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const spy = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ headers: req.headers, body });
        res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: false, error: { code: 'AUTH_INVALID', message: 'no', details: {} } }));
      });
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(spy.address() as net.AddressInfo).port}`;
      await client.ok(['link', origin, '--replace=true']);
      seedSession(client, origin, 'seeded-bearer');
      expect((await client.run(['status'])).json.error.code).to.equal('AUTH_INVALID');
      expect(seen).to.have.length(1);
      expect(seen[0]!.headers).to.include({ authorization: 'Bearer seeded-bearer', 'x-taskdag-protocol-version': '1' });
      expect(seen[0]!.body).not.to.include('seeded-bearer');
    } finally {
      spy.close();
    }
  });

  it('server routes on the checkout project answer the same as its commands (the transfer route included)', async () => {
    const { project_id } = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    const bearer = JSON.parse(readFileSync(path.join(client.home, '.taskdag', 'remote-sessions.json'), 'utf8')).sessions[linked.origin].bearer;
    const answer = await request(linked.origin, 'GET', `/v1/projects/${project_id}/transfer`, { headers: { Authorization: `Bearer ${bearer}` } });
    expect(answer.status).to.equal(200);
    expect(answer.json.state).to.deep.equal(await client.ok(['state']));
    const unauthenticated = await request(linked.origin, 'GET', `/v1/projects/${project_id}/transfer`);
    expect(unauthenticated.status).to.equal(401);
  });
});

/** The dispatcher contract suite through the command line of a checkout linked to a real server. */
describe('a linked checkout, through the command line (dispatcher contract)', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  before(async () => {
    linked = await startLinkedServer();
  });
  after(async () => linked?.close());

  dispatcherContract('CLI in a linked checkout (server run on 127.0.0.1)', async () => {
    const client = await linkedClient(linked, { init: false });
    const { project_id } = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    return { dispatcher: new CliDispatcher(client), project: project_id, remote: true, commandLine: true, cleanup: () => client.remove() };
  });
});
