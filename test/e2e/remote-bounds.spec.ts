import { expect } from 'chai';
import { statSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';
import { seedSession, startFakeServer, type FakeServer } from '../support/linked-server.js';
import { runInTerminal } from '../support/terminal.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const MIB = 1024 * 1024;

/** A 200 answer of JSON whitespace that never ends, written as fast as the client reads it. */
function endlessAnswer(response: http.ServerResponse): void {
  response.writeHead(200, JSON_TYPE);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = () => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', pump);
  };
  response.write('[');
  pump();
}

/**
 * What a linked checkout's client accepts from a server (issue 23, item 5): a server that is not
 * taskdag, or a broken one, gets a clear failure code and changes nothing on the client.
 */
describe('the remote client bounds what a server hands it', function () {
  this.timeout(60_000);
  let client: Sandbox;
  let fake: FakeServer | null = null;
  const profileFile = () => path.join(client.home, '.taskdag', 'remote-sessions.json');
  beforeEach(() => {
    client = new Sandbox();
  });
  afterEach(async () => {
    await fake?.close();
    fake = null;
    client.remove();
  });

  /** A checkout linked to a fake server that answers every request with `answer`, logged in with a well-formed bearer. */
  async function linkedTo(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<FakeServer> {
    fake = await startFakeServer(answer);
    await client.ok(['link', fake.origin]);
    seedSession(client, fake.origin);
    return fake;
  }

  describe('answers outside the operation\'s published result', () => {
    const cases: [string[], unknown, string][] = [
      [['status'], {}, '$.summary is required'],
      [['show', 'T-1'], { type: 'task', node: { id: 'T-1' } }, '$.node.title is required'],
      [['context', 'T-1'], { node: null }, '$.derived_status is required'],
      [['add-initiative', 'core', '--as', 'alice'], [], '$ is not object'],
      [['take', 'T-1', '--as', 'alice'], { ok: true }, '$.node is required'],
    ];
    for (const [args, body, first] of cases) {
      it(`taskdag ${args.join(' ')} answered ${JSON.stringify(body)}: REMOTE_REQUEST_FAILED naming what is wrong, nothing printed as success`, async () => {
        await linkedTo((_request, response) => response.writeHead(200, JSON_TYPE).end(JSON.stringify(body)));
        const before = fileTree(client.root);
        const result = await client.run(args);
        expect(result.code).to.equal(1);
        expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
        expect(result.json.error.details).to.include({ cause: 'EBADRESPONSE', origin: fake!.origin });
        expect(result.json.error.details.violations[0]).to.equal(first);
        expect(result.json.error.message).to.include(first);
        expect(fileTree(client.root)).to.deep.equal(before);
      });
    }

    it('pull answered with a state outside the schema writes nothing locally', async () => {
      const state = { version: 1, fence_generation: 0, revision: 'three', initiatives: {}, nodes: [], edges: [], log: [] };
      await linkedTo((_request, response) => response.writeHead(200, JSON_TYPE).end(JSON.stringify({ project_id: 'p', state, plugins: {} })));
      const before = fileTree(client.root);
      const result = await client.run(['pull', '--as', 'alice']);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
      expect(result.json.error.details.violations).to.deep.equal(['$.state.revision is not integer', '$.state.nodes is not object']);
      expect(fileTree(client.root)).to.deep.equal(before);
    });
  });

  describe('answers from a newer server', () => {
    it('an answer with fields this release does not know is taken and printed; a missing required field is still refused', async () => {
      const local = new Sandbox();
      try {
        await local.ok(['init', '--as', 'orchestrator']);
        const known = await local.ok(['add-initiative', 'core', '--as', 'planner']);
        const newer = { ...known, added_later: { by: 'a newer server' }, initiative: { ...known.initiative, colour: 'teal' } };
        const { initiative: _dropped, ...missing } = newer;
        let answer: unknown = newer;
        await linkedTo((_request, response) => response.writeHead(200, JSON_TYPE).end(JSON.stringify(answer)));
        const taken = await client.run(['add-initiative', 'core', '--as', 'planner'], { fromNewerServer: true });
        expect(taken.code).to.equal(0);
        expect(taken.json).to.deep.equal(newer);

        answer = missing;
        const refused = await client.run(['add-initiative', 'core', '--as', 'planner']);
        expect(refused.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
        expect(refused.json.error.details.violations[0]).to.equal('$.initiative is required');
      } finally {
        local.remove();
      }
    });
  });

  describe('answers past the size cap', () => {
    it('a declared length past the cap (256 MiB by default) is refused before the body is read', async () => {
      await linkedTo((_request, response) => {
        response.writeHead(200, { ...JSON_TYPE, 'Content-Length': String(300 * MIB) });
        response.write('{"summary": ');
      });
      const before = fileTree(client.root);
      const started = Date.now();
      const result = await client.run(['status'], { env: { TASKDAG_REMOTE_TIMEOUT_MS: '20000' } });
      expect(Date.now() - started).to.be.below(10_000);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
      expect(result.json.error.details).to.include({ cause: 'ETOOLARGE', limit_bytes: 256 * MIB });
      expect(fileTree(client.root)).to.deep.equal(before);
    });

    it('an answer of no declared length is cut off as soon as it passes TASKDAG_REMOTE_MAX_ANSWER_BYTES', async () => {
      await linkedTo((_request, response) => endlessAnswer(response));
      const before = fileTree(client.root);
      const result = await client.run(['state'], { env: { TASKDAG_REMOTE_MAX_ANSWER_BYTES: String(MIB), TASKDAG_REMOTE_TIMEOUT_MS: '20000' } });
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
      expect(result.json.error.details).to.include({ cause: 'ETOOLARGE', limit_bytes: MIB });
      expect(fileTree(client.root)).to.deep.equal(before);
    });

    it('TASKDAG_REMOTE_MAX_ANSWER_BYTES must be a whole number of bytes up to 512 MiB', async () => {
      await linkedTo((_request, response) => response.writeHead(200, JSON_TYPE).end('{}'));
      for (const value of ['lots', '0', String(512 * MIB + 1)]) {
        const result = await client.run(['status'], { env: { TASKDAG_REMOTE_MAX_ANSWER_BYTES: value } });
        expect(result.json.error.code, value).to.equal('INVALID_ARGUMENT');
        expect(result.json.error.details).to.deep.equal({ field: 'TASKDAG_REMOTE_MAX_ANSWER_BYTES', value });
      }
      expect(fake!.requests).to.deep.equal([]);
    });
  });

  describe('bearers of an odd shape', () => {
    const odd: Record<string, string> = {
      'a non-ASCII': 'bearer\u2603',
      'a control-character': 'bea\u0001rer',
      'an over-long': 'b'.repeat(5000),
    };
    for (const [kind, bearer] of Object.entries(odd)) {
      it(`login refuses ${kind} bearer from the server (REMOTE_REQUEST_FAILED) and stores nothing`, async () => {
        fake = await startFakeServer((_request, response) =>
          response.writeHead(200, JSON_TYPE).end(JSON.stringify({ bearer, expires_at: '2030-01-01T00:00:00.000Z' })),
        );
        await client.ok(['link', fake.origin]);
        const result = await runInTerminal(client, ['login'], 'any password');
        expect(result.code).to.equal(1);
        expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
        expect(result.json.error.details).to.include({ cause: 'EBADRESPONSE', origin: fake.origin });
        expect(result.stdout).not.to.include(bearer);
        expect(() => statSync(profileFile())).to.throw();
      });

      it(`${kind} bearer already stored is AUTH_INVALID at once: no request, no timer left to run out`, async () => {
        fake = await startFakeServer((_request, response) => response.writeHead(200, JSON_TYPE).end('{}'));
        await client.ok(['link', fake.origin]);
        seedSession(client, fake.origin, bearer);
        const before = fileTree(client.root);
        const started = Date.now();
        const result = await client.run(['status'], { env: { TASKDAG_REMOTE_TIMEOUT_MS: '15000' } });
        expect(Date.now() - started).to.be.below(10_000);
        expect(result.code).to.equal(1);
        expect(result.json.error.code).to.equal('AUTH_INVALID');
        expect(result.json.error.message).to.include('run taskdag login');
        expect(result.json.error.details).to.include({ origin: fake.origin, profile: profileFile() });
        expect(result.stdout).not.to.include(bearer);
        expect(result.stderr).to.equal('');
        expect(fake.requests).to.deep.equal([]);
        expect(fileTree(client.root)).to.deep.equal(before);
      });
    }
  });
});
