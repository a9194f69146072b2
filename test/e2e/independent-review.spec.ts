import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { linkedClient, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { callFails, startMcp } from '../support/mcp.js';
import { login, request } from '../support/server-process.js';

const addTask = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead'];

/** T-1 submitted by alice. */
async function submittedByAlice(sandbox: Sandbox): Promise<void> {
  await sandbox.ok(['add-initiative', 'core', '--as', 'lead']);
  await sandbox.ok(addTask('T-1'));
  await sandbox.ok(['take', 'T-1', '--as', 'alice']);
  await sandbox.ok(['submit', 'T-1', '--note', 'done', '--as', 'alice']);
}

/** Under the independent rule the submitter's accept is refused, changing nothing, and another agent's goes through. */
async function onlyAnotherAgentAccepts(sandbox: Sandbox): Promise<void> {
  await submittedByAlice(sandbox);
  const before = (await sandbox.run(['state'])).stdout;
  const refused = await sandbox.run(['accept', 'T-1', '--as', 'alice']);
  expect(refused.code).to.equal(1);
  expect(refused.json.error.code).to.equal('INDEPENDENT_REVIEW_REQUIRED');
  expect(refused.json.error.details).to.deep.equal({ id: 'T-1', action: 'accept', submitted_by: 'alice', review: 'independent' });
  expect((await sandbox.run(['state'])).stdout, 'a refused accept writes nothing').to.equal(before);
  expect((await sandbox.ok(['context', 'T-1', '--as', 'alice'])).allowed_actions).not.to.include('accept');
  expect((await sandbox.ok(['context', 'T-1', '--as', 'bob'])).allowed_actions).to.include('accept');
  expect((await sandbox.ok(['accept', 'T-1', '--as', 'bob'])).node).to.include({ status: 'done', done_by: 'alice', accepted_by: 'bob' });
}

function setReview(file: string, review: string): void {
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...config, review }, null, 2) + '\n');
}

describe('independent review (a project rule: the submitter may not accept)', function () {
  this.timeout(60_000);

  describe('a local project, with review in its .taskdag.json', () => {
    let sandbox: Sandbox;
    beforeEach(async () => {
      sandbox = new Sandbox();
      await sandbox.init();
    });
    afterEach(() => sandbox.remove());

    it("is off by default: the submitter may accept, as the spec says", async () => {
      await submittedByAlice(sandbox);
      expect((await sandbox.ok(['accept', 'T-1', '--as', 'alice'])).node.accepted_by).to.equal('alice');
    });

    it('when independent, refuses the submitter with INDEPENDENT_REVIEW_REQUIRED and lets another agent accept', async () => {
      setReview(path.join(sandbox.checkout, '.taskdag.json'), 'independent');
      await onlyAnotherAgentAccepts(sandbox);
    });

    it('holds in a batch and over MCP too', async () => {
      setReview(path.join(sandbox.checkout, '.taskdag.json'), 'independent');
      await submittedByAlice(sandbox);
      const before = (await sandbox.run(['state'])).stdout;
      const plan = JSON.stringify({ operations: [{ op: 'add-note', args: { id: 'T-1', text: 'looks fine' } }, { op: 'accept', args: { id: 'T-1' } }] });
      const batch = await sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: plan });
      expect([batch.code, batch.json.error.code, batch.json.error.details.index, batch.json.error.details.error.code]).to.deep.equal([
        1,
        'BATCH_OPERATION_FAILED',
        1,
        'INDEPENDENT_REVIEW_REQUIRED',
      ]);
      const session = await startMcp(sandbox, { after: ['--as', 'alice'] });
      try {
        expect((await callFails(session, 'accept', { id: 'T-1' })).code).to.equal('INDEPENDENT_REVIEW_REQUIRED');
      } finally {
        await session.close();
      }
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });

    it('refuses a rule it does not know rather than falling back to any', async () => {
      setReview(path.join(sandbox.checkout, '.taskdag.json'), 'strict');
      const result = await sandbox.run(['status']);
      expect(result.code).to.equal(1);
      expect(result.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
      expect(result.json.error.details).to.include({ cause: 'EINVALID' });
    });
  });

  describe("a server's projects, with review in its server.json", () => {
    let server: LinkedServer;
    let client: Sandbox;
    before(async () => {
      server = await startLinkedServer();
      setReview(server.config, 'independent');
      await server.restart();
    });
    after(async () => server.close());
    beforeEach(async () => {
      client = await linkedClient(server);
    });
    afterEach(() => client.remove());

    it('refuses the submitter through the linked checkout and lets another agent accept', async () => {
      await onlyAnotherAgentAccepts(client);
    });

    it('answers a POST of the submitter\'s accept with HTTP 409 and the code, committing nothing', async () => {
      await submittedByAlice(client);
      const project = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8')).project_id as string;
      const bearer = (await login(server.origin, server.password)).json.bearer as string;
      const post = (operation: string, args: object, agent: string | null) =>
        request(server.origin, 'POST', `/v1/projects/${project}/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });
      const before = (await post('status', {}, null)).json;
      const answer = await post('accept', { id: 'T-1' }, 'alice');
      expect([answer.status, answer.json.error.code]).to.deep.equal([409, 'INDEPENDENT_REVIEW_REQUIRED']);
      expect((await post('status', {}, null)).json, 'nothing committed').to.deep.equal(before);
      expect((await post('show', { id: 'T-1' }, null)).json.node.status).to.equal('submitted');
    });

    it("ignores the linked checkout's own setting: the server's rule decides", async () => {
      setReview(path.join(client.checkout, '.taskdag.json'), 'any');
      await submittedByAlice(client);
      expect((await client.run(['accept', 'T-1', '--as', 'alice'])).json.error.code).to.equal('INDEPENDENT_REVIEW_REQUIRED');
    });
  });
});
