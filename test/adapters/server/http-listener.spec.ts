import Router from '@koa/router';
import { expect } from 'chai';
import http from 'node:http';
import { PassThrough } from 'node:stream';
import { AuthService } from '../../../application/server/auth-service.js';
import { DEFAULT_SETTINGS } from '../../../application/server/server-settings.js';
import { buildHttpApp } from '../../../adapters/server/http-app.js';
import { listen } from '../../../adapters/server/http-listener.js';
import { PathRedactor } from '../../../adapters/server/path-redactor.js';
import { ShutdownHooks } from '../../../adapters/server/shutdown-hooks.js';
import { TweetnaclBearerTokens } from '../../../adapters/server/tweetnacl-bearer-tokens.js';
import { PROTOCOL } from '../../support/server-process.js';
import { InMemoryCredentialStore } from '../../support/in-memory-credentials.js';

describe('listen (graceful stop on 127.0.0.1:0)', () => {
  it('ends live streams through the shutdown hooks, so the drain completes instead of waiting out its bound', async () => {
    const store = { location: 'remote-auth.json', load: async () => ({ kind: 'absent' as const }), install: async () => true, save: async () => undefined, credentials: new InMemoryCredentialStore() };
    const hasher = { derive: async (password: string) => ({ kdf: 'scrypt' as const, n: 1, r: 1, p: 1, salt: 's', hash: password }), matches: async (password: string, verifier: { hash: string }) => password === verifier.hash };
    const { service } = await AuthService.open({ store, hasher, tokens: new TweetnaclBearerTokens(), clock: { now: () => new Date().toISOString() } }, 'pw', 1);
    const { bearer } = await service.login('pw', 'test');
    const shutdown = new ShutdownHooks();
    // A live stream as the next routes mount one: it registers its end with the shutdown hooks.
    const events = ({ shutdown: hooks }: { shutdown: ShutdownHooks }) => {
      const router = new Router();
      router.get('/v1/stream', (ctx) => {
        const stream = new PassThrough();
        const unregister = hooks.add(() => stream.end('event: bye\n\n'));
        stream.on('close', unregister);
        ctx.type = 'text/event-stream';
        ctx.body = stream;
        stream.write(': open\n\n');
      });
      return [router];
    };
    const app = buildHttpApp({ auth: service, maxBodyBytes: 1024, shutdown, redactor: new PathRedactor({}), log: () => undefined, authenticated: events });
    const server = await listen(app, { host: '127.0.0.1', port: 0 }, DEFAULT_SETTINGS, shutdown);

    const received = await new Promise<{ ended: Promise<string> }>((resolve) => {
      http.get(`http://127.0.0.1:${server.port}/v1/stream`, { headers: { ...PROTOCOL, Authorization: `Bearer ${bearer}` }, agent: false }, (response) => {
        let text = '';
        const ended = new Promise<string>((done) => response.on('end', () => done(text)));
        response.setEncoding('utf8');
        response.once('data', (chunk) => {
          text += chunk;
          response.on('data', (more) => (text += more));
          resolve({ ended });
        });
      });
    });
    const stopped = await server.stop(60_000);
    expect(stopped).to.deep.equal({ drained: true });
    expect(await received.ended).to.equal(': open\n\nevent: bye\n\n');
  });
});
