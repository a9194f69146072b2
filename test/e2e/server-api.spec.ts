import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startApiServer, openEvents, type ApiServer, type EventStream } from '../support/api-server.js';
import { outputViolation } from '../support/output-schemas.js';
import { openApiViolation } from '../support/openapi-check.js';
import { request } from '../support/server-process.js';

const task = (id: string, blocked_by: string[] = []) => ({ id, initiative: 'core', title: id, body: '', acceptance: 'ok', blocked_by });

describe('the server /v1 API (spec 4.7, 4.8, 6)', function () {
  this.timeout(60_000);
  let api: ApiServer;
  before(async () => {
    api = await startApiServer();
  });
  after(async () => api.close());

  const ok = async (project: string, operation: string, args: Record<string, unknown> = {}, agent: string | null = 'alice') => {
    const answer = await api.op(project, operation, args, agent);
    expect(answer.status, `${operation}: ${answer.text}`).to.equal(200);
    expect(outputViolation(operation, answer.json), operation).to.equal(null);
    return answer.json;
  };

  it('every route needs a valid bearer: 401 AUTH_INVALID without one, with a forged one', async () => {
    const routes: [string, string][] = [
      ['GET', '/v1/projects'],
      ['POST', '/v1/projects/p-1/ops/status'],
      ['GET', '/v1/projects/p-1/ui/snapshot'],
      ['GET', '/v1/projects/p-1/ui/nodes/T-1'],
      ['GET', '/v1/projects/p-1/ui/activity'],
      ['GET', '/v1/projects/p-1/ui/events'],
    ];
    for (const [method, route] of routes) {
      for (const headers of [{}, { Authorization: `Bearer ${'A'.repeat(43)}` }] as Record<string, string>[]) {
        const answer = await request(api.server.origin, method, route, { headers, body: method === 'POST' ? {} : undefined });
        expect(answer.status, `${method} ${route}`).to.equal(401);
        expect(answer.json.error.code).to.equal('AUTH_INVALID');
      }
    }
  });

  it('only init provisions a project: every other operation or read on an absent one is PROJECT_NOT_FOUND and creates nothing', async () => {
    for (const answer of [
      await api.op('p-absent', 'status', {}, null),
      await api.op('p-absent', 'add-initiative', { name: 'core' }),
      await api.op('p-absent', 'batch', { operations: [] }),
      await api.get('/v1/projects/p-absent/ui/snapshot'),
      await api.get('/v1/projects/p-absent/ui/activity'),
    ]) {
      expect(answer.status).to.equal(404);
      expect(answer.json.error).to.include({ code: 'PROJECT_NOT_FOUND' });
    }
    expect(api.projectsOnDisk()).not.to.include('p-absent');
    const created = await ok('p-absent', 'init', {}, null);
    expect(created).to.deep.equal({ project_id: 'p-absent', created: true });
    expect(await ok('p-absent', 'init', {}, null)).to.include({ created: false });
  });

  it('runs the same operations as local mode and answers their JSON; failures are the envelope with the status of one table', async () => {
    await ok('p-1', 'init', {}, null);
    await ok('p-1', 'add-initiative', { name: 'core' });
    await ok('p-1', 'add-task', task('T-1'));
    await ok('p-1', 'add-task', task('T-2', ['T-1']));
    const taken = await ok('p-1', 'take', { id: 'T-1' });
    expect(taken.freshly_claimed).to.equal(true);
    await ok('p-1', 'submit', { id: 'T-1', note: 'done' });
    expect((await ok('p-1', 'accept', { id: 'T-1' }, 'bob')).newly_ready).to.deep.equal(['T-2']);
    expect((await ok('p-1', 'status', {}, null)).summary.ready).to.equal(1);
    const batch = await ok('p-1', 'batch', { operations: [{ op: 'add-note', args: { id: 'T-2', text: 'from a batch' } }] });
    expect(batch.results).to.have.length(1);
    const failures: [string, Record<string, unknown>, string | null, number, string][] = [
      ['take', { id: 'T-2' }, null, 400, 'MISSING_AGENT'],
      ['add-task', { id: 'T-3' }, 'alice', 400, 'MISSING_FIELD'],
      ['show', { id: 'T-404' }, null, 404, 'NODE_NOT_FOUND'],
      ['add-task', task('T-1'), 'alice', 409, 'ID_CONFLICT'],
      ['init', { force: true }, 'alice', 400, 'REMOTE_UNSUPPORTED_OPERATION'],
      ['snapshots', {}, null, 400, 'REMOTE_UNSUPPORTED_OPERATION'],
      ['restore', { snapshot_id: 'x' }, 'alice', 400, 'REMOTE_UNSUPPORTED_OPERATION'],
      ['migrate', { all: true }, 'alice', 400, 'REMOTE_UNSUPPORTED_OPERATION'],
      ['server-init', {}, 'alice', 404, 'UNKNOWN_COMMAND'],
      ['frobnicate', {}, 'alice', 404, 'UNKNOWN_COMMAND'],
    ];
    for (const [operation, args, agent, status, code] of failures) {
      const answer = await api.op('p-1', operation, args, agent);
      expect([answer.status, answer.json?.error?.code], operation).to.deep.equal([status, code]);
      expect(outputViolation(operation, answer.json)).to.equal(null);
      expect(answer.text, operation).not.to.include(api.root);
    }
  });

  it('catalog, snapshot with ETag and 304, node detail and paged activity', async () => {
    await ok('p-2', 'init', {}, null);
    await ok('p-2', 'add-initiative', { name: 'core' });
    await ok('p-2', 'add-task', task('T-1'));
    const catalog = await api.get('/v1/projects');
    expect(catalog.status).to.equal(200);
    expect(catalog.json.projects.find((project: any) => project.id === 'p-2')).to.deep.include({ readable: true, revision: 2 });
    const snapshot = await api.get('/v1/projects/p-2/ui/snapshot');
    expect(snapshot.status).to.equal(200);
    expect(snapshot.json.nodes.map((node: any) => [node.id, node.status])).to.deep.equal([['T-1', 'ready']]);
    const etag = snapshot.headers.etag as string;
    expect(etag).to.match(/^"g\d+r2"$/);
    const again = await api.get('/v1/projects/p-2/ui/snapshot', { 'If-None-Match': etag });
    expect([again.status, again.text]).to.deep.equal([304, '']);
    await ok('p-2', 'add-note', { id: 'T-1', text: 'changed' });
    expect((await api.get('/v1/projects/p-2/ui/snapshot', { 'If-None-Match': etag })).status).to.equal(200);
    const detail = await api.get('/v1/projects/p-2/ui/nodes/T-1');
    expect(detail.json.context.node.notes.map((note: any) => note.text)).to.deep.equal(['changed']);
    expect((await api.get('/v1/projects/p-2/ui/nodes/T-9')).json.error.code).to.equal('NODE_NOT_FOUND');
    const page = await api.get('/v1/projects/p-2/ui/activity?limit=2');
    expect(page.json.entries.map((entry: any) => entry.revision)).to.deep.equal([3, 2]);
    expect(page.json.next_before).to.equal(2);
    expect((await api.get('/v1/projects/p-2/ui/activity?limit=x')).status).to.equal(400);
  });

  it('If-None-Match compares weakly (RFC 9110): a weak tag, a list naming the ETag, or * answer 304; anything else the snapshot', async () => {
    await ok('p-etag', 'init', {}, null);
    const etag = (await api.get('/v1/projects/p-etag/ui/snapshot')).headers.etag as string;
    const statusFor = async (field: string) => (await api.get('/v1/projects/p-etag/ui/snapshot', { 'If-None-Match': field })).status;
    for (const field of [`W/${etag}`, `"other", ${etag}`, `W/"other",W/${etag}`, '*', ` ${etag} ,`, `"a,b", ${etag}`]) expect(await statusFor(field), field).to.equal(304);
    for (const field of ['"other"', `W/"g0r0"`, etag.slice(1, -1), `"other", ${etag.slice(1, -1)}`, `${etag}x`]) expect(await statusFor(field), field).to.equal(200);
  });

  it('transfers: GET answers the whole state, a stale PUT is 409 naming both revisions, neither provisions', async () => {
    await ok('p-5', 'init', {}, null);
    await ok('p-5', 'add-initiative', { name: 'core' });
    const auth = { Authorization: `Bearer ${api.bearer}` };
    const checked = (method: string, route: string, answer: Awaited<ReturnType<typeof request>>) => {
      expect(openApiViolation(method, route, answer.status, answer.json)).to.equal(null);
      return answer;
    };
    const pulled = checked('GET', '/v1/projects/p-5/transfer', await request(api.server.origin, 'GET', '/v1/projects/p-5/transfer', { headers: auth }));
    expect(pulled.json.state.revision).to.equal(1);
    const body = { state: pulled.json.state, expected_revision: 0, force: false, agent: 'alice' };
    const stale = checked('PUT', '/v1/projects/p-5/transfer', await request(api.server.origin, 'PUT', '/v1/projects/p-5/transfer', { headers: auth, body }));
    expect([stale.status, stale.json.error.code]).to.deep.equal([409, 'STATE_REVISION_CONFLICT']);
    const absent = checked('GET', '/v1/projects/p-none/transfer', await request(api.server.origin, 'GET', '/v1/projects/p-none/transfer', { headers: auth }));
    expect(absent.json.error.code).to.equal('PROJECT_NOT_FOUND');
    expect(api.projectsOnDisk()).not.to.include('p-none');
  });

  it('live events: a mutation arrives as id: <revision>; a reconnect with Last-Event-ID misses nothing', async () => {
    await ok('p-3', 'init', {}, null);
    await ok('p-3', 'add-initiative', { name: 'core' });
    const stream = await openEvents(api.server.origin, api.bearer, 'p-3');
    await ok('p-3', 'add-task', task('T-1'));
    await stream.waitFor((event) => event.event === 'revision' && event.id === '2');
    stream.close();
    await ok('p-3', 'add-task', task('T-2'));
    await ok('p-3', 'add-task', task('T-3'));
    const resumed = await openEvents(api.server.origin, api.bearer, 'p-3', 2);
    await resumed.waitFor((event) => event.id === '4');
    expect(resumed.events.map((event) => event.id)).to.deep.equal(['3', '4']);
    resumed.close();
  });

  it('32 agents racing take over HTTP: exactly one wins', async () => {
    await ok('p-4', 'init', {}, null);
    await ok('p-4', 'add-initiative', { name: 'core' });
    await ok('p-4', 'add-task', task('T-1'));
    const answers = await Promise.all(Array.from({ length: 32 }, (_, index) => api.op('p-4', 'take', { id: 'T-1' }, `agent-${index}`)));
    expect(answers.filter((answer) => answer.status === 200)).to.have.length(1);
    expect(new Set(answers.filter((answer) => answer.status !== 200).map((answer) => answer.json.error.code))).to.deep.equal(new Set(['ALREADY_CLAIMED']));
  });

  it('serves the board outside /v1: 503 with a hint when it is not built, while /v1 stays JSON', async () => {
    const home = await request(api.server.origin, 'GET', '/', { protocol: false });
    expect(home.status).to.equal(503);
    expect(home.text).to.include('not built');
    const deep = await request(api.server.origin, 'GET', '/projects/p-1', { protocol: false });
    expect(deep.status).to.equal(503);
    const unknown = await api.get('/v1/nothing-here');
    expect(unknown.headers['content-type']).to.match(/json/);
  });
});

describe('the server serves a built board (spec 4.8)', function () {
  this.timeout(60_000);
  let api: ApiServer;
  before(async () => {
    api = await startApiServer();
    const uiRoot = path.join(api.root, 'ui');
    mkdirSync(path.join(uiRoot, 'assets'), { recursive: true });
    writeFileSync(path.join(uiRoot, 'index.html'), '<!doctype html><title>board</title>');
    writeFileSync(path.join(uiRoot, 'assets', 'app-1a2b.js'), 'console.log(1)');
  });
  after(async () => api.close());

  it('index.html no-cache, /assets immutable, any other path falls back to index.html, a missing asset is 404', async () => {
    // The server was set up with the default UI root; point a second one at this build.
    const { startServer, initServerRoot, login } = await import('../support/server-process.js');
    const { root, config, env } = await initServerRoot(api.sandbox, 'srv2', ['--ui-root', path.join(api.root, 'ui')]);
    const server = await startServer(api.sandbox, config, env);
    try {
      const index = await request(server.origin, 'GET', '/', { protocol: false });
      expect([index.status, index.headers['cache-control']]).to.deep.equal([200, 'no-cache']);
      expect(index.text).to.include('<title>board</title>');
      const asset = await request(server.origin, 'GET', '/assets/app-1a2b.js', { protocol: false });
      expect([asset.status, asset.headers['cache-control']]).to.deep.equal([200, 'public, max-age=31536000, immutable']);
      const deep = await request(server.origin, 'GET', '/projects/p-1/nodes/T-1', { protocol: false });
      expect([deep.status, deep.text]).to.deep.equal([200, index.text]);
      expect((await request(server.origin, 'HEAD', '/', { protocol: false })).status).to.equal(200);
      expect((await request(server.origin, 'GET', '/assets/missing.js', { protocol: false })).status).to.equal(404);
      const bearer = (await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
      const api404 = await request(server.origin, 'GET', '/v1/projects/zzz/ui/snapshot', { headers: { Authorization: `Bearer ${bearer}` } });
      expect(api404.headers['content-type']).to.match(/json/);
      expect(root).to.be.a('string');
    } finally {
      await server.stop('SIGKILL');
    }
  });
});

describe('live events under churn (spec 4.7)', function () {
  this.timeout(120_000);
  let api: ApiServer;
  before(async () => {
    api = await startApiServer();
    await api.op('p-live', 'init', {});
    await api.op('p-live', 'add-initiative', { name: 'core' });
    await api.op('p-live', 'add-task', { id: 'T-1', initiative: 'core', title: 'x', body: '', acceptance: 'a', blocked_by: [] });
  });
  after(async () => api.close());

  const status = async () => (await api.get('/v1/server/status')).json as { subscribers: number; active_resources: number };

  it('1,000 connect/abort cycles leave the subscriber count and the open resources back at their baseline', async () => {
    const baseline = await status();
    for (let round = 0; round < 20; round++) {
      const streams = await Promise.all(Array.from({ length: 50 }, () => openEvents(api.server.origin, api.bearer, 'p-live')));
      for (const stream of streams) stream.close();
    }
    let now = await status();
    for (let attempt = 0; attempt < 50 && (now.subscribers > 0 || now.active_resources > baseline.active_resources); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      now = await status();
    }
    expect(now.subscribers).to.equal(0);
    expect(now.active_resources).to.be.at.most(baseline.active_resources);
  });

  it('the 1,025th stream gets its documented 400 INVALID_ARGUMENT with retry_after_ms, as a whole answer; a freed slot opens again', async () => {
    const streams: EventStream[] = [];
    try {
      for (let batch = 0; batch < 16; batch++) streams.push(...(await Promise.all(Array.from({ length: 64 }, () => openEvents(api.server.origin, api.bearer, 'p-live')))));
      expect((await status()).subscribers).to.equal(1024);
      // `request` resolves only once the answer has ended: a stream left open fails it at its time bound.
      const refused = await request(api.server.origin, 'GET', '/v1/projects/p-live/ui/events', { headers: { Authorization: `Bearer ${api.bearer}` } });
      expect([refused.status, refused.headers['content-type'], refused.headers['retry-after']]).to.deep.equal([400, 'application/json; charset=utf-8', '5']);
      expect(refused.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { limit: 1024, retry_after_ms: 5000 } });
      streams.pop()!.close();
      let now = await status();
      for (let attempt = 0; attempt < 50 && now.subscribers > 1023; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        now = await status();
      }
      streams.push(await openEvents(api.server.origin, api.bearer, 'p-live'));
      expect((await status()).subscribers).to.equal(1024);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
