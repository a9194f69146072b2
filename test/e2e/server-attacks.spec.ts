import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { renameSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { initServerRoot, login, PROTOCOL, request, session, startServer, type RunningServer } from '../support/server-process.js';

/** Sends a request whose body is written in chunks (Transfer-Encoding: chunked) and resolves with the answer. */
function chunkedLogin(origin: string, chunks: string[]): Promise<{ status: number; json: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(`${origin}/v1/auth/login`, { method: 'POST', headers: { ...PROTOCOL, 'Content-Type': 'application/json' }, agent: false });
    outgoing.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(text), headers: response.headers }));
    });
    // The server may close the connection while chunks are still going out; the answer is what counts.
    outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    const writeNext = (index: number) => {
      if (index === chunks.length) return outgoing.end();
      outgoing.write(chunks[index], () => setImmediate(() => writeNext(index + 1)));
    };
    writeNext(0);
  });
}

/**
 * A login whose request the server has provably received (it answered `100 Continue` to the
 * headers) and whose body is still to come: a request in flight, with no sleep.
 */
async function requestInFlight(origin: string): Promise<http.ClientRequest> {
  const outgoing = http.request(`${origin}/v1/auth/login`, {
    method: 'POST',
    headers: { ...PROTOCOL, 'Content-Type': 'application/json', Expect: '100-continue' },
    agent: false,
  });
  await new Promise((resolve) => outgoing.once('continue', resolve));
  return outgoing;
}

/** Resolves once the server wrote `text` on stderr. */
function stderrIncludes(server: RunningServer, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!server.output().stderr.includes(text)) return;
      server.child.stderr!.off('data', check);
      resolve();
    };
    server.child.stderr!.on('data', check);
    check();
  });
}

describe('server attack battery', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let root: string;
  let config: string;
  let password: string;
  let server: RunningServer;
  const serving = async () => expect((await login(server.origin, password)).status).to.equal(200);
  beforeEach(async () => {
    sandbox = new Sandbox();
    const made = await initServerRoot(sandbox);
    ({ root, config } = made);
    password = made.env.TASKDAG_SERVER_PASSWORD!;
    server = await startServer(sandbox, config, {
      ...made.env,
      TASKDAG_SERVER_MAX_BODY_BYTES: '2048',
      TASKDAG_SERVER_HEADERS_TIMEOUT_MS: '500',
      TASKDAG_SERVER_DRAIN_MS: '2000',
    });
  });
  afterEach(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('an oversized body with a Content-Length gets 413 and the envelope, unread; the server keeps serving', async () => {
    const answer = await request(server.origin, 'POST', '/v1/auth/login', { body: { password: 'x'.repeat(4096) } });
    expect(answer.status).to.equal(413);
    expect(answer.json).to.deep.equal({
      ok: false,
      error: { code: 'REQUEST_TOO_LARGE', message: answer.json.error.message, details: { limit_bytes: 2048 } },
    });
    await serving();
  });

  it('an oversized chunked body gets 413 and the envelope as soon as it passes the cap; the server keeps serving', async () => {
    const answer = await chunkedLogin(server.origin, ['{"password":"', ...Array.from({ length: 64 }, () => 'y'.repeat(512)), '"}']);
    expect(answer.status).to.equal(413);
    expect(answer.json.error).to.deep.include({ code: 'REQUEST_TOO_LARGE', details: { limit_bytes: 2048 } });
    expect(answer.headers.connection).to.equal('close');
    const fits = await chunkedLogin(server.origin, ['{"pass', `word":"${password}"}`]);
    expect(fits.status).to.equal(200);
  });

  it('malformed bodies and unknown routes get the envelope, never HTML and never a stack', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/v1/auth/login', '{"password":', 400, 'INVALID_ARGUMENT'],
      ['POST', '/v1/auth/login', '[1,2]', 400, 'MISSING_FIELD'],
      ['POST', '/v1/auth/login', { password: 42 }, 400, 'MISSING_FIELD'],
      ['GET', '/v1/auth/login', undefined, 404, 'UNKNOWN_COMMAND'],
      ['GET', '/v1/nowhere', undefined, 404, 'UNKNOWN_COMMAND'],
    ];
    for (const [method, route, body, status, code] of cases) {
      const answer = await request(server.origin, method, route, { body });
      expect(answer.status, `${method} ${route}`).to.equal(status);
      expect(answer.headers['content-type']).to.match(/^application\/json/);
      expect(answer.json.error.code, `${method} ${route}`).to.equal(code);
      expect(answer.text).not.to.match(/ at .*\.js:\d+/);
    }
    await serving();
  });

  it('a client that never finishes its headers is cut off at the headers timeout; the server keeps serving', async () => {
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(answer).to.match(/^HTTP\/1\.1 408/);
    await serving();
  });

  it('a failure to persist a session is a 500 with no server path in the body, and grants nothing', async () => {
    const state = path.join(root, 'state');
    renameSync(state, `${state}-moved`);
    try {
      const answer = await login(server.origin, password);
      expect(answer.status).to.equal(500);
      expect(answer.json.error.code).to.equal('STORAGE_ERROR');
      expect(answer.text).not.to.include(sandbox.root);
      expect(answer.json.error.message).to.include('<stateHome>');
    } finally {
      renameSync(`${state}-moved`, state);
    }
    await serving();
  });

  it('SIGTERM during a request: the listener closes, the request in flight completes, and the process exits 0 with nothing lost', async () => {
    const chunks = ['{"password":', `"${password}"}`];
    const outgoing = await requestInFlight(server.origin);
    const answered = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, text, connection: response.headers.connection }));
      });
    });
    await new Promise<void>((resolve) => outgoing.write(chunks[0], () => resolve()));
    server.child.kill('SIGTERM');
    await stderrIncludes(server, 'SIGTERM received');
    // Stopped accepting: a new connection is refused.
    const refused = await request(server.origin, 'GET', '/v1/auth/session').then(
      () => null,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(refused).to.equal('ECONNREFUSED');
    outgoing.end(chunks[1]);
    const answer = await answered;
    expect(answer.status).to.equal(200);
    expect(answer.connection).to.equal('close');
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });
    // The session granted during the drain was durable.
    server = await startServer(sandbox, config, { TASKDAG_SERVER_PASSWORD: password });
    expect((await session(server.origin, JSON.parse(answer.text).bearer)).status).to.equal(200);
  });

  it('a request that never ends is cut at the drain bound; the process still exits 0', async () => {
    const outgoing = await requestInFlight(server.origin);
    const cut = new Promise<string>((resolve) => outgoing.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)));
    await new Promise<void>((resolve) => outgoing.write('{"password":', () => resolve()));
    server.child.kill('SIGTERM');
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });
    expect(await cut).to.equal('ECONNRESET');
    expect(server.output().stderr).to.include('cut off');
  });

  it('a second signal during the drain cuts it short and still exits 0', async () => {
    const outgoing = await requestInFlight(server.origin);
    outgoing.on('error', () => undefined);
    await new Promise<void>((resolve) => outgoing.write('{"password":', () => resolve()));
    server.child.kill('SIGTERM');
    await stderrIncludes(server, 'SIGTERM received');
    server.child.kill('SIGINT');
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });
  });
});

describe('server attack battery: slow bodies', function () {
  this.timeout(60_000);
  it('a client that sends its body too slowly is cut off at the request timeout; the server keeps serving', async () => {
    const sandbox = new Sandbox();
    const { config, env } = await initServerRoot(sandbox);
    const server = await startServer(sandbox, config, { ...env, TASKDAG_SERVER_HEADERS_TIMEOUT_MS: '500', TASKDAG_SERVER_REQUEST_TIMEOUT_MS: '1000' });
    try {
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Taskdag-Protocol-Version: 1\r\nContent-Length: 100\r\n\r\n{"pass`);
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      await new Promise((resolve) => socket.once('close', resolve));
      expect(answer).to.match(/^HTTP\/1\.1 408/);
      expect((await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
    } finally {
      await server.stop();
      sandbox.remove();
    }
  });
});
