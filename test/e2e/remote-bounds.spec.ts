import { expect } from 'chai';
import { statSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';
import { seedSession, startFakeServer, type FakeServer } from '../support/linked-server.js';
import { runInTerminal } from '../support/terminal.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

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
