import Router from '@koa/router';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../../../domain/errors.js';
import { AuthService } from '../../../application/server/auth-service.js';
import { buildHttpApp } from '../../../adapters/server/http-app.js';
import { PathRedactor } from '../../../adapters/server/path-redactor.js';
import { ShutdownHooks } from '../../../adapters/server/shutdown-hooks.js';
import { TweetnaclBearerTokens } from '../../../adapters/server/tweetnacl-bearer-tokens.js';
import { request } from '../../support/server-process.js';
import { InMemoryCredentialStore } from '../../support/in-memory-credentials.js';

/** The koa app on 127.0.0.1:0 with a router mounted through the seam the next routes use. */
describe('buildHttpApp (koa on 127.0.0.1:0)', () => {
  let server: http.Server;
  let origin: string;
  let bearer: string;
  const logged: string[] = [];

  before(async () => {
    const store = { location: '/srv/x/state/remote-auth.json', load: async () => ({ kind: 'absent' as const }), install: async () => true, save: async () => undefined, credentials: new InMemoryCredentialStore() };
    const hasher = { derive: async (password: string) => ({ kdf: 'scrypt' as const, n: 1, r: 1, p: 1, salt: 's', hash: password }), matches: async (password: string, verifier: { hash: string }) => password === verifier.hash };
    const { service } = await AuthService.open({ store, hasher, tokens: new TweetnaclBearerTokens(), clock: { now: () => new Date().toISOString() } }, 'pw', 1);
    bearer = (await service.login('pw', 'test')).bearer;
    const projects = () => {
      const router = new Router();
      router.get('/v1/projects', (ctx) => {
        ctx.body = { projects: [], session: Boolean(ctx.state.session) };
      });
      router.get('/v1/projects/storage', () => {
        throw new DomainError('STORAGE_ERROR', 'Cannot read /srv/x/data/projects/p-1/tasks.json: EIO', { cause: 'EIO', path: '/srv/x/data/projects/p-1/tasks.json', nested: ['/srv/x/state/a'] });
      });
      router.get('/v1/projects/bug', () => {
        throw new Error('secret internals at /srv/x/data');
      });
      router.get('/v1/projects/conflict', () => {
        throw new DomainError('REVISION_CONFLICT', 'stale', {});
      });
      return [router];
    };
    const app = buildHttpApp({
      auth: service,
      maxBodyBytes: 1024,
      shutdown: new ShutdownHooks(),
      redactor: new PathRedactor({ dataRoot: '/srv/x/data', stateHome: '/srv/x/state', setupRoot: '/srv/x' }),
      log: (line) => logged.push(line),
      authenticated: projects,
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (route: string, withBearer = true) => request(origin, 'GET', route, { headers: withBearer ? { Authorization: `Bearer ${bearer}` } : {} });

  it('mounts authenticated routers behind the bearer check', async () => {
    expect((await get('/v1/projects')).json).to.deep.equal({ projects: [], session: true });
    const refused = await get('/v1/projects', false);
    expect(refused.status).to.equal(401);
    expect(refused.json.error.code).to.equal('AUTH_INVALID');
  });

  it('answers every error with the envelope and the status of the one table, server paths redacted everywhere', async () => {
    const storage = await get('/v1/projects/storage');
    expect(storage.status).to.equal(500);
    expect(storage.json).to.deep.equal({
      ok: false,
      error: {
        code: 'STORAGE_ERROR',
        message: 'Cannot read <dataRoot>/projects/p-1/tasks.json: EIO',
        details: { cause: 'EIO', path: '<dataRoot>/projects/p-1/tasks.json', nested: ['<stateHome>/a'] },
      },
    });
    expect((await get('/v1/projects/conflict')).status).to.equal(409);
  });

  it('turns an unexpected error into CLI_INTERNAL_ERROR with no internals, logging it for the operator', async () => {
    const bug = await get('/v1/projects/bug');
    expect(bug.status).to.equal(500);
    expect(bug.json).to.deep.equal({ ok: false, error: { code: 'CLI_INTERNAL_ERROR', message: bug.json.error.message, details: {} } });
    expect(bug.text).not.to.include('/srv/x').and.not.to.include('internals');
    expect(logged.some((line) => line.includes('secret internals'))).to.equal(true);
  });

  it('answers unknown routes and methods with 404 UNKNOWN_COMMAND, without asking for a bearer', async () => {
    for (const [method, route] of [['GET', '/v1/elsewhere'], ['DELETE', '/v1/projects'], ['GET', '/']]) {
      const answer = await request(origin, method!, route!);
      expect(answer.status, `${method} ${route}`).to.equal(404);
      expect(answer.json.error.code, `${method} ${route}`).to.equal('UNKNOWN_COMMAND');
    }
  });
});
