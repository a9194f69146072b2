import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { HttpRemoteDispatcher } from '../../../adapters/remote/http-remote-dispatcher.js';
import { OwnerForwarding } from '../../../adapters/server/owner-forwarding.js';
import { cutWhenClientGoes, projectRoutes, type ProjectRoutesOptions } from '../../../adapters/server/project-routes.js';
import type { OperationDispatcher } from '../../../application/operation.js';
import { OwnedElsewhere, type ProjectOwners } from '../../../application/ports/project-owners.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { OperationRegistry } from '../../../application/registry.js';
import type { DomainError } from '../../../domain/errors.js';

async function text(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('which server requests are cut when their client goes away', () => {
  it('from its start, only a call that waits for work: a forward makes its own when it starts', () => {
    const cut = OPERATIONS.filter((operation) => cutWhenClientGoes(operation)).map((operation) => operation.name);
    expect(cut).to.deep.equal(['next']);
  });
});

describe('a request of a project another process owns (issue 25)', () => {
  const registry = new OperationRegistry(OPERATIONS);
  let owner: http.Server;
  let forwarder: http.Server;
  let forwarding: OwnerForwarding;
  const received: { body: string; headers: http.IncomingHttpHeaders }[] = [];
  const dispatched: string[] = [];
  /** Whether this process knows the owner (a mutation is relayed unread), or finds out by trying (OwnedElsewhere). */
  let ownerKnown = true;
  /** What the dispatcher does before it answers: served here when `serve` gives a result, refused for the owner otherwise. */
  let beforeAnswer: () => Promise<unknown> = async () => undefined;
  const signals: (AbortSignal | undefined)[] = [];
  /** An address this process still names as the owner's, where nothing listens (the owner died). */
  let staleOwner: string | undefined;
  /** The owner addresses this process was told to forget, found unreachable. */
  const forgotten: string[] = [];
  /** How the owner answers a request it has read whole. */
  let ownerAnswers: (response: http.ServerResponse) => void;
  const answerAsAServer = (response: http.ServerResponse) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'X-Taskdag-Owner': ownerUrl() });
    response.end('{"answered":"by the owner"}');
  };

  beforeEach(async () => {
    received.length = 0;
    forgotten.length = 0;
    staleOwner = undefined;
    dispatched.length = 0;
    signals.length = 0;
    ownerKnown = true;
    beforeAnswer = async () => undefined;
    ownerAnswers = answerAsAServer;
    // The owner: records what reaches it, answers as a server does unless a test says otherwise.
    owner = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
        ownerAnswers(response);
      });
    });
    await new Promise<void>((resolve) => owner.listen(0, '127.0.0.1', resolve));
    const owners: ProjectOwners = {
      takeIfFree: async () => undefined,
      ownerAfter: async () => ownerUrl(),
      knownOwner: () => ownerUrl(),
      elsewhere: () => (ownerKnown ? (staleOwner ?? ownerUrl()) : undefined),
      unreachable: (_project, address) => forgotten.push(address),
    };
    forwarding = new OwnerForwarding(owners, 5_000, 5_000);
    const dispatcher: OperationDispatcher = {
      dispatch: async (request) => {
        dispatched.push(request.operation);
        signals.push(request.signal);
        const served = await beforeAnswer();
        if (served !== undefined) return served;
        throw new OwnedElsewhere('p', ownerUrl());
      },
    };
    const options = { dispatcher, registry, maxBodyBytes: 1024 * 1024, ownership: { owners, forwarding }, projects: { require: async () => undefined } } as unknown as ProjectRoutesOptions;
    const app = new Koa();
    // A forward refused for a client gone is an error the app would log: nobody reads it.
    app.silent = true;
    app.use(async (ctx, next) => {
      ctx.state.session = { binding: { kind: 'any' } };
      await next();
    });
    app.use(projectRoutes(options).routes());
    forwarder = http.createServer(app.callback());
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    forwarding.close();
    await new Promise((resolve) => owner.close(resolve));
    await new Promise((resolve) => forwarder.close(resolve));
  });

  const ownerUrl = () => `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;
  const send = (operation: string, body: string) =>
    new Promise<{ status: number; text: string; owner: string | undefined }>((resolve, reject) => {
      const port = (forwarder.address() as AddressInfo).port;
      const outgoing = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/v1/projects/p/ops/${operation}`, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer b' } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode!, text, owner: response.headers['x-taskdag-owner'] as string | undefined }));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  it('is relayed to the owner as the client sent it, unread and not dispatched here, and the answer comes back as the owner gave it', async () => {
    // Spacing and key order a parse and a serialisation would not keep.
    const body = '{ "agent": "alice",  "args": {"id": "T-1"} }';
    const answer = await send('take', body);
    expect(answer).to.deep.equal({ status: 200, text: '{"answered":"by the owner"}', owner: ownerUrl() });
    expect(received.map((one) => one.body)).to.deep.equal([body]);
    expect(received[0]!.headers['x-taskdag-forwarded']).to.equal('1');
    expect(received[0]!.headers['idempotency-key']).to.match(/^forwarded-/);
    expect(received[0]!.headers.authorization).to.equal('Bearer b');
    expect(dispatched).to.deep.equal([]);
  });

  it('a read is relayed to the owner unread, with no request id, and not served here: this process replays none of the owner\'s commits for it', async () => {
    const body = '{"args": {"id": "T-1"},  "agent": null}';
    const answer = await send('show', body);
    expect(answer).to.deep.equal({ status: 200, text: '{"answered":"by the owner"}', owner: ownerUrl() });
    expect(received.map((one) => [one.body, one.headers['x-taskdag-forwarded'], one.headers['idempotency-key']])).to.deep.equal([[body, '1', undefined]]);
    expect(dispatched).to.deep.equal([]);
  });

  /** Sends a request to this process and reads its answer as it comes: `ended` only when it came whole. */
  const sendAndRead = (operation: string, body: string, onFirstBytes: () => void = () => undefined) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; ended: boolean }>((resolve, reject) => {
      const port = (forwarder.address() as AddressInfo).port;
      const outgoing = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/v1/projects/p/ops/${operation}`, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer b' } }, (response) => {
        const chunks: Buffer[] = [];
        response.once('data', onFirstBytes);
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        const settle = (ended: boolean) => () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), ended });
        response.on('end', settle(true));
        response.on('error', settle(false));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  it("a read's answer is relayed as it arrives, not held here whole first: the client reads it while the owner still writes, and gets all of it with the owner's status and headers", async function () {
    this.timeout(20_000);
    const half = `{"nodes":"${'x'.repeat(8 * 1024 * 1024)}`;
    const rest = `${'y'.repeat(8 * 1024 * 1024)}"}`;
    let clientReads: () => void = () => undefined;
    const clientReading = new Promise<void>((resolve) => (clientReads = resolve));
    let ownerDone = false;
    let readWhileOwnerWrote: boolean | undefined;
    ownerAnswers = (response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'X-Taskdag-Owner': ownerUrl(), 'Content-Length': String(half.length + rest.length) });
      response.write(half);
      // Held whole before it is passed on, the answer would not reach the client until the owner ends it.
      void Promise.race([clientReading, new Promise((resolve) => setTimeout(resolve, 5_000))]).then(() => {
        ownerDone = true;
        response.end(rest);
      });
    };
    const answer = await sendAndRead('state', '{"args": {}, "agent": null}', () => {
      readWhileOwnerWrote = !ownerDone;
      clientReads();
    });
    expect(readWhileOwnerWrote, 'bytes reached the client before the owner ended its answer').to.equal(true);
    expect([answer.status, answer.ended, answer.headers['content-type'], answer.headers['x-taskdag-owner'], answer.headers['content-length']]).to.deep.equal([
      200,
      true,
      'application/json; charset=utf-8',
      ownerUrl(),
      String(half.length + rest.length),
    ]);
    expect(answer.text === half + rest, 'the answer byte for byte').to.equal(true);
    expect(dispatched).to.deep.equal([]);
  });

  for (const framing of ['a declared length', 'chunks'] as const) {
    it(`a read's answer cut off at the owner (sent in ${framing}) reaches the client cut off, never as a shorter answer that ends as if whole; the taskdag client says REMOTE_REQUEST_FAILED`, async () => {
      const half = `{"nodes":"${'x'.repeat(1024 * 1024)}`;
      ownerAnswers = (response) => {
        response.writeHead(200, { 'Content-Type': 'application/json', ...(framing === 'chunks' ? {} : { 'Content-Length': String(2 * half.length) }) });
        response.write(half, () => setTimeout(() => response.socket!.destroy(), 50));
      };
      const answer = await sendAndRead('state', '{"args": {}, "agent": null}');
      expect(answer.ended, 'the answer ended as if whole').to.equal(false);
      expect(answer.text.length).to.be.below(2 * half.length);
      const client = new HttpRemoteDispatcher({ origin: `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`, bearer: 'b', operations: registry, retries: 1, sleep: async () => undefined });
      try {
        const failure = await client.dispatch({ project: 'p', operation: 'state', args: {}, agent: null }).then(
          () => null,
          (error: DomainError) => [error.code, error.details.cause, error.details.attempts],
        );
        expect(failure).to.deep.equal(['REMOTE_REQUEST_FAILED', 'ECONNRESET', 2]);
      } finally {
        client.close();
      }
    });
  }

  it('a read whose known owner does not answer (it just died) is served here at once, and the address is forgotten', async () => {
    // A port that was listening a moment ago, closed: connections to it are refused.
    const dead = http.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    staleOwner = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((resolve) => dead.close(resolve));
    beforeAnswer = async () => ({ served: 'here' });
    const started = Date.now();
    const answer = await send('status', '{"args": {}, "agent": null}');
    expect([answer.status, JSON.parse(answer.text)]).to.deep.equal([200, { served: 'here' }]);
    expect(Date.now() - started).to.be.below(2_000);
    expect(dispatched).to.deep.equal(['status']);
    expect(forgotten).to.deep.equal([staleOwner]);
  });

  it('a read waits for a slow owner a fifth of a try\'s bound (2 s with the default lease), so a longer lease waits longer', async () => {
    const slow = http.createServer((request, response) => request.resume().on('end', () => setTimeout(() => response.end('{"answered":"slowly"}'), 2_500)));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const read = { project: 'p', path: '/v1/projects/p/ops/status', body: '{}', authorization: 'Bearer b' };
    const patient = new OwnerForwarding({ unreachable: (_project: string, address: string) => forgotten.push(address) } as unknown as ProjectOwners, 15_000, 15_000);
    const hasty = new OwnerForwarding({ unreachable: (_project: string, address: string) => forgotten.push(address) } as unknown as ProjectOwners, 10_000, 10_000);
    try {
      const [waited, gaveUp] = await Promise.all([patient.relayRead(read, slowUrl), hasty.relayRead(read, slowUrl)]);
      expect(waited && (await text(waited.body))).to.equal('{"answered":"slowly"}');
      expect(gaveUp).to.equal(null);
      expect(forgotten).to.deep.equal([slowUrl]);
    } finally {
      patient.close();
      hasty.close();
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('a call that waits for work (next --wait) is read here, so the forward waits as long as it may', async () => {
    const answer = await send('next', '{"args": {"wait": 1}, "agent": "alice"}');
    expect(answer.status).to.equal(200);
    expect(dispatched).to.deep.equal(['next']);
    expect(JSON.parse(received[0]!.body)).to.deep.equal({ args: { wait: 1 }, agent: 'alice' });
  });

  it('a request served here carries no signal (an AbortController a request cost the server about 40 µs a mutation)', async () => {
    ownerKnown = false;
    beforeAnswer = async () => ({ served: 'here' });
    const answer = await send('add-task', '{"args": {}, "agent": "alice"}');
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.text)).to.deep.equal({ served: 'here' });
    expect(signals).to.deep.equal([undefined]);
    expect(received).to.deep.equal([]);
  });

  it('a request tried here whose client went away meanwhile is not forwarded: the owner gets nothing', async () => {
    ownerKnown = false;
    let clientGone: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (clientGone = resolve));
    beforeAnswer = async () => {
      await gone;
      // The close reaches the server's socket in its next turns.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return undefined;
    };
    const port = (forwarder.address() as AddressInfo).port;
    const outgoing = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/projects/p/ops/take', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer b' } });
    outgoing.on('error', () => undefined);
    outgoing.end('{"args": {"id": "T-1"}, "agent": "alice"}');
    while (dispatched.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    outgoing.destroy();
    clientGone();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(dispatched).to.deep.equal(['take']);
    expect(received).to.deep.equal([]);
  });
});
