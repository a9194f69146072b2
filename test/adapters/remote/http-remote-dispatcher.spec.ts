import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import sinon from 'sinon';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { HttpRemoteDispatcher } from '../../../adapters/remote/http-remote-dispatcher.js';
import { FileOwnerRoutes, OWNER_ROUTES_FILE, trustedOwnerOrigins } from '../../../adapters/remote/owner-routes.js';
import { useTempDir } from '../../support/temp-dir.js';
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

  describe('following the owner a server names (X-Taskdag-Owner, docs/scaling.md)', () => {
    const home = useTempDir();
    const initiative = { initiative: { name: 'core', desc: '', created_at: '2026-11-25T10:00:00.000Z' } };
    type Seen = { headers: http.IncomingHttpHeaders };
    type Refusal = { status: number; body: string };
    const envelope = (code: string, message: string) => JSON.stringify({ ok: false, error: { code, message, details: {} } });
    /** A server that records each request and answers an initiative, naming `owner()` as the project's owner. */
    async function namingServer(owner: () => string | undefined) {
      const seen: Seen[] = [];
      const handle = { cut: null as ((request: http.IncomingMessage) => void) | null, refusal: null as Refusal | null };
      const server = http.createServer((request, response) => {
        request.resume().on('end', () => {
          if (handle.cut) return handle.cut(request);
          seen.push({ headers: request.headers });
          if (handle.refusal) return void response.writeHead(handle.refusal.status, { 'Content-Type': 'application/json' }).end(handle.refusal.body);
          const named = owner();
          response.writeHead(200, { 'Content-Type': 'application/json', ...(named ? { 'X-Taskdag-Owner': named } : {}) });
          response.end(JSON.stringify(initiative));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      return {
        origin,
        seen,
        set cut(cut: (request: http.IncomingMessage) => void) {
          handle.cut = cut;
        },
        /** From now on every request is answered with this status and body, naming no owner. */
        set refusal(refusal: Refusal) {
          handle.refusal = refusal;
        },
        close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
      };
    }
    /** One command's dispatcher, as each linked command makes one, remembering owners in `home`. */
    const commandAt = (origin: string, trusted: string[]) =>
      new HttpRemoteDispatcher({ origin, bearer: 'the-bearer', operations: new OperationRegistry(OPERATIONS), owners: new FileOwnerRoutes(home(), new Set(trusted)) });
    const addInitiative = async (sut: HttpRemoteDispatcher) => {
      try {
        return await sut.dispatch({ project: 'p', operation: 'add-initiative', args: { name: 'core' }, agent: 'alice' });
      } finally {
        sut.close();
      }
    };

    it('sends the next calls, from another command too, to a trusted owner, with the bearer; the linked origin gets only the first', async () => {
      const owner = await namingServer(() => undefined);
      const linked = await namingServer(() => owner.origin);
      try {
        for (let call = 0; call < 3; call++) expect(await addInitiative(commandAt(linked.origin, [owner.origin]))).to.deep.equal(initiative);
        expect([linked.seen.length, owner.seen.length]).to.deep.equal([1, 2]);
        expect(owner.seen.map((one) => one.headers.authorization)).to.deep.equal(['Bearer the-bearer', 'Bearer the-bearer']);
        expect(JSON.parse(readFileSync(path.join(home(), OWNER_ROUTES_FILE), 'utf8'))).to.deep.equal({ version: 1, owners: { [`${linked.origin} p`]: owner.origin } });
      } finally {
        await owner.close();
        await linked.close();
      }
    });

    it('never sends anything to an owner address it does not trust: every call goes to the linked origin', async () => {
      const advertised = await namingServer(() => undefined);
      const linked = await namingServer(() => advertised.origin);
      try {
        // Trusting another address only, then none.
        for (const trusted of [['http://127.0.0.1:9'], []]) await addInitiative(commandAt(linked.origin, trusted));
        expect([linked.seen.length, advertised.seen.length]).to.deep.equal([2, 0]);
      } finally {
        await advertised.close();
        await linked.close();
      }
    });

    it('a trusted owner that dies with the call (its connection cut as it reads it): the same call goes to the linked origin with the same request id, and the owner is forgotten', async () => {
      const owner = await namingServer(() => undefined);
      let named: string | undefined = owner.origin;
      const linked = await namingServer(() => named);
      // Once known, the owner reads the next call and dies without answering.
      const cutIds: unknown[] = [];
      owner.cut = (request) => (cutIds.push(request.headers['idempotency-key']), request.socket.destroy());
      try {
        await addInitiative(commandAt(linked.origin, [owner.origin]));
        named = undefined;
        expect(await addInitiative(commandAt(linked.origin, [owner.origin]))).to.deep.equal(initiative);
        expect(linked.seen).to.have.length(2);
        expect(cutIds).to.have.length(1);
        expect(linked.seen[1]!.headers['idempotency-key']).to.equal(cutIds[0]);
        expect(JSON.parse(readFileSync(path.join(home(), OWNER_ROUTES_FILE), 'utf8')).owners).to.deep.equal({});
        await addInitiative(commandAt(linked.origin, [owner.origin]));
        expect([linked.seen.length, cutIds.length]).to.deep.equal([3, 1]);
      } finally {
        await owner.close();
        await linked.close();
      }
    });

    const notServing: [string, Refusal][] = [
      ['another database, without the project (404 PROJECT_NOT_FOUND)', { status: 404, body: envelope('PROJECT_NOT_FOUND', 'This server holds no project p') }],
      ['another deployment, refusing the bearer (401 AUTH_INVALID)', { status: 401, body: envelope('AUTH_INVALID', 'Unknown bearer') }],
      ['no taskdag server at all (a 404 page)', { status: 404, body: '<h1>Not Found</h1>' }],
    ];
    for (const [what, refusal] of notServing) {
      it(`a remembered owner that now answers as ${what}: the same call goes to the linked origin with the same request id, and the owner is forgotten`, async () => {
        const owner = await namingServer(() => undefined);
        let named: string | undefined = owner.origin;
        const linked = await namingServer(() => named);
        try {
          await addInitiative(commandAt(linked.origin, [owner.origin]));
          named = undefined;
          owner.refusal = refusal;
          expect(await addInitiative(commandAt(linked.origin, [owner.origin]))).to.deep.equal(initiative);
          expect([linked.seen.length, owner.seen.length]).to.deep.equal([2, 1]);
          expect(linked.seen[1]!.headers['idempotency-key']).to.be.a('string').and.equal(owner.seen[0]!.headers['idempotency-key']);
          expect(JSON.parse(readFileSync(path.join(home(), OWNER_ROUTES_FILE), 'utf8')).owners).to.deep.equal({});
          await addInitiative(commandAt(linked.origin, [owner.origin]));
          expect([linked.seen.length, owner.seen.length]).to.deep.equal([3, 1]);
        } finally {
          await owner.close();
          await linked.close();
        }
      });
    }

    it('an error of the operation from a remembered owner (409 ALREADY_CLAIMED) is passed on unchanged: nothing goes to the origin and the owner is kept', async () => {
      const owner = await namingServer(() => undefined);
      const linked = await namingServer(() => owner.origin);
      try {
        await addInitiative(commandAt(linked.origin, [owner.origin]));
        owner.refusal = { status: 409, body: envelope('ALREADY_CLAIMED', 'Task t-1 is claimed by bob') };
        const error = (await addInitiative(commandAt(linked.origin, [owner.origin])).catch((thrown: unknown) => thrown)) as DomainError;
        expect([error.code, error.message]).to.deep.equal(['ALREADY_CLAIMED', 'Task t-1 is claimed by bob']);
        expect([linked.seen.length, owner.seen.length]).to.deep.equal([1, 1]);
        expect(JSON.parse(readFileSync(path.join(home(), OWNER_ROUTES_FILE), 'utf8')).owners).to.deep.equal({ [`${linked.origin} p`]: owner.origin });
      } finally {
        await owner.close();
        await linked.close();
      }
    });

    it('TASKDAG_REMOTE_TRUSTED_OWNERS lists http(s) origins; anything else is INVALID_ARGUMENT naming it', () => {
      expect([...trustedOwnerOrigins({ TASKDAG_REMOTE_TRUSTED_OWNERS: 'http://10.0.0.2:7407, https://b.internal:7407/' })]).to.deep.equal(['http://10.0.0.2:7407', 'https://b.internal:7407']);
      expect([...trustedOwnerOrigins({})]).to.deep.equal([]);
      for (const value of ['10.0.0.2:7407', 'http://user@10.0.0.2:7407', 'http://10.0.0.2:7407/base', 'file:///tmp/x']) {
        const error = (() => {
          try {
            trustedOwnerOrigins({ TASKDAG_REMOTE_TRUSTED_OWNERS: value });
            return null;
          } catch (thrown) {
            return thrown as DomainError;
          }
        })();
        expect([error?.code, error?.details.field], value).to.deep.equal(['INVALID_ARGUMENT', 'TASKDAG_REMOTE_TRUSTED_OWNERS']);
      }
    });
  });
});
