import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import sinon from 'sinon';
import { HttpRemoteDispatcher } from '../../../adapters/remote/http-remote-dispatcher.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { OperationRegistry } from '../../../application/registry.js';
import { DomainError } from '../../../domain/errors.js';

describe('HttpRemoteDispatcher', function () {
  this.timeout(10_000);

  it('a request Node refuses to build (a header it cannot carry) fails at once as REMOTE_REQUEST_FAILED and leaves no deadline running', async () => {
    const sut = new HttpRemoteDispatcher({ origin: 'http://127.0.0.1:9', bearer: 'bearer\u2603', operations: new OperationRegistry(OPERATIONS), timeoutMs: 60_000 });
    const clock = sinon.useFakeTimers();
    try {
      const error = await sut.dispatch({ project: 'p', operation: 'status', args: {}, agent: null }).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('REMOTE_REQUEST_FAILED');
      expect((error as DomainError).details).to.include({ cause: 'ERR_INVALID_CHAR', origin: 'http://127.0.0.1:9' });
      expect((error as DomainError).message).not.to.include('bearer\u2603');
      expect(clock.countTimers()).to.equal(0);
    } finally {
      sut.close();
    }
  });

  describe('retries (docs/remote.md, "Retries")', () => {
    /** A server on 127.0.0.1 that cuts the first `cut` connections after reading the request, then answers `answer`. */
    async function cuttingServer(cut: number, answer: (body: any) => unknown) {
      const seen: { headers: http.IncomingHttpHeaders; body: any }[] = [];
      const server = http.createServer((request, response) => {
        let text = '';
        request.on('data', (chunk) => (text += chunk));
        request.on('end', () => {
          seen.push({ headers: request.headers, body: JSON.parse(text || 'null') });
          if (seen.length <= cut) return void request.socket.destroy();
          response.setHeader('Content-Type', 'application/json');
          response.end(JSON.stringify(answer(seen.at(-1)!.body)));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      return { origin, seen, close: () => new Promise((resolve) => server.close(resolve)) };
    }
    const waits: number[] = [];
    const dispatcher = (origin: string, retries?: number) =>
      new HttpRemoteDispatcher({ origin, bearer: 'b', operations: new OperationRegistry(OPERATIONS), sleep: async (ms) => void waits.push(ms), ...(retries === undefined ? {} : { retries }) });
    const initiative = { initiative: { name: 'core', desc: '', created_at: '2026-11-25T10:00:00.000Z' } };
    beforeEach(() => (waits.length = 0));

    it('sends a mutation again after a cut connection, with the same Idempotency-Key, backing off 250, 500, 1000 ms', async () => {
      const server = await cuttingServer(3, () => initiative);
      const sut = dispatcher(server.origin);
      try {
        expect(await sut.dispatch({ project: 'p', operation: 'add-initiative', args: { name: 'core' }, agent: 'alice' })).to.deep.equal(initiative);
        const keys = server.seen.map((request) => request.headers['idempotency-key']);
        expect(keys).to.have.length(4);
        expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
        expect(new Set(keys).size).to.equal(1);
        expect(waits).to.deep.equal([250, 500, 1000]);
      } finally {
        sut.close();
        await server.close();
      }
    });

    it('gives each logical request its own id, and a read none', async () => {
      const server = await cuttingServer(0, () => initiative);
      const sut = dispatcher(server.origin);
      try {
        for (let at = 0; at < 2; at++) await sut.dispatch({ project: 'p', operation: 'add-initiative', args: { name: 'core' }, agent: 'alice' });
        await sut.dispatch({ project: 'p', operation: 'initiatives', args: {}, agent: null }).catch(() => undefined);
        const [first, second, read] = server.seen.map((request) => request.headers['idempotency-key']);
        expect(first).to.be.a('string').and.not.equal(second);
        expect(read).to.equal(undefined);
      } finally {
        sut.close();
        await server.close();
      }
    });

    it('stops after `retries` more attempts with the last failure, its attempts and its request id', async () => {
      const server = await cuttingServer(10, () => initiative);
      const sut = dispatcher(server.origin, 1);
      try {
        const error = (await sut.dispatch({ project: 'p', operation: 'add-initiative', args: { name: 'core' }, agent: 'alice' }).catch((thrown: unknown) => thrown)) as DomainError;
        expect(error.code).to.equal('REMOTE_REQUEST_FAILED');
        expect(error.details).to.include({ cause: 'ECONNRESET', attempts: 2, request_id: server.seen[0]!.headers['idempotency-key'] });
        expect(server.seen).to.have.length(2);
      } finally {
        sut.close();
        await server.close();
      }
    });

    it('never retries an answer: a taskdag error or JSON outside the schema is reported after one attempt', async () => {
      const server = await cuttingServer(0, () => ({ not: 'an initiative' }));
      const sut = dispatcher(server.origin);
      try {
        const error = (await sut.dispatch({ project: 'p', operation: 'add-initiative', args: { name: 'core' }, agent: 'alice' }).catch((thrown: unknown) => thrown)) as DomainError;
        expect(error.details).to.include({ cause: 'EBADRESPONSE' });
        expect(server.seen).to.have.length(1);
        expect(waits).to.deep.equal([]);
      } finally {
        sut.close();
        await server.close();
      }
    });
  });
});
