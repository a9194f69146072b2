import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startAnswerLosingProxy, type AnswerLosingProxy } from '../support/answer-losing-proxy.js';
import { Sandbox } from '../support/cli.js';
import { loginAt, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { login, request } from '../support/server-process.js';

const ADD_TASK = ['add-task', '--initiative', 'core', '--title', 'Invoice API', '--body', 'Do it', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice'];

/**
 * Retries that never apply twice (issue 26 item 5, docs/remote.md "Retries"): a linked checkout
 * whose answer is lost after the server committed retries with the same request id, and the
 * server answers the retry from what it remembered with the commit, applying nothing again.
 */
describe('remote retries: a lost answer is retried and applied once', function () {
  this.timeout(60_000);
  let linked: LinkedServer;
  let proxy: AnswerLosingProxy;
  let client: Sandbox;

  before(async () => {
    linked = await startLinkedServer();
    proxy = await startAnswerLosingProxy(Number(new URL(linked.origin).port));
  });
  after(async () => {
    await proxy?.close();
    await linked?.close();
  });
  beforeEach(async () => {
    client = new Sandbox();
    await client.ok(['link', proxy.origin]);
    await loginAt(client, linked.password);
    await client.ok(['init']);
    await client.ok(['add-initiative', 'core', '--as', 'alice']);
  });
  afterEach(() => client.remove());

  const tasks = async (): Promise<string[]> => Object.keys((await client.ok(['state'])).nodes);

  it('add-task without an id whose answer is lost after the commit makes one task, and prints it', async () => {
    const connectionsBefore = proxy.connections;
    proxy.loseNextAnswer();
    const added = await client.ok(ADD_TASK);
    expect(proxy.lost).to.be.at.least(1);
    expect(proxy.connections - connectionsBefore).to.equal(2);
    expect(await tasks()).to.deep.equal([added.node.id]);
  });

  it('a server restarted between the commit and the retry still answers it once: the id is durable', async () => {
    const lostBefore = proxy.lost;
    proxy.loseNextAnswer(() => linked.restart());
    const added = await client.ok(ADD_TASK);
    expect(proxy.lost).to.equal(lostBefore + 1);
    expect(await tasks()).to.deep.equal([added.node.id]);
  });

  it('a batch whose answer is lost is applied once, whatever its expected revision', async () => {
    const { revision } = await client.ok(['status']);
    const plan = { expect_revision: revision, operations: [{ op: 'add-task', args: { initiative: 'core', title: 'One', body: 'b', acceptance: 'ok', blocked_by: [] } }] };
    proxy.loseNextAnswer();
    const applied = await client.ok(['batch', '--stdin', '--as', 'alice'], { input: JSON.stringify(plan) });
    expect(await tasks()).to.deep.equal([applied.results[0].result.node.id]);
  });

  it('the same id with another request is refused with REQUEST_ID_REUSED (409) and changes nothing', async () => {
    const { project_id } = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    const { bearer } = (await login(linked.origin, linked.password)).json;
    const send = (title: string) =>
      request(linked.origin, 'POST', `/v1/projects/${project_id}/ops/add-task`, {
        headers: { Authorization: `Bearer ${bearer}`, 'Idempotency-Key': 'retry-e2e-1' },
        body: { args: { initiative: 'core', title, body: 'b', acceptance: 'ok', blocked_by: [] }, agent: 'alice' },
      });
    const first = await send('First');
    const again = await send('First');
    expect(first.status).to.equal(200);
    expect(again.status).to.equal(200);
    expect(again.json).to.deep.equal(first.json);
    const other = await send('Second');
    expect(other.status).to.equal(409);
    expect(other.json.error.code).to.equal('REQUEST_ID_REUSED');
    expect(other.json.error.details).to.include({ request_id: 'retry-e2e-1' });
    expect(await tasks()).to.deep.equal([first.json.node.id]);
  });

  it('an Idempotency-Key that is not one token is INVALID_ARGUMENT (400), before anything runs', async () => {
    const { project_id } = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8'));
    const { bearer } = (await login(linked.origin, linked.password)).json;
    const answer = await request(linked.origin, 'POST', `/v1/projects/${project_id}/ops/add-task`, {
      headers: { Authorization: `Bearer ${bearer}`, 'Idempotency-Key': 'two words' },
      body: { args: { initiative: 'core', title: 'x', body: 'b', acceptance: 'ok', blocked_by: [] }, agent: 'alice' },
    });
    expect(answer.status).to.equal(400);
    expect(answer.json.error).to.include({ code: 'INVALID_ARGUMENT' });
    expect(await tasks()).to.deep.equal([]);
  });

  it('gives up after TASKDAG_REMOTE_RETRIES more attempts, saying how many and under which id', async () => {
    await linked.server.stop();
    try {
      const result = await client.run(ADD_TASK, { env: { TASKDAG_REMOTE_RETRIES: '2' } });
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
      expect(result.json.error.details).to.include({ attempts: 3 });
      expect(result.json.error.details.request_id).to.match(/^[0-9a-f-]{36}$/);
    } finally {
      await linked.restart();
    }
  });

  it('TASKDAG_REMOTE_RETRIES=0 keeps the spec default: the lost answer is REMOTE_REQUEST_FAILED, though the server committed', async () => {
    proxy.loseNextAnswer();
    const result = await client.run(ADD_TASK, { env: { TASKDAG_REMOTE_RETRIES: '0' } });
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('REMOTE_REQUEST_FAILED');
    expect(result.json.error.details).to.include({ cause: 'ECONNRESET', attempts: 1 });
    expect(await tasks()).to.have.length(1);
  });

  it('TASKDAG_REMOTE_RETRIES must be a whole number from 0 to 10, checked before any request', async () => {
    const connectionsBefore = proxy.connections;
    for (const value of ['-1', '11', 'few']) {
      const result = await client.run(ADD_TASK, { env: { TASKDAG_REMOTE_RETRIES: value } });
      expect(result.json.error.code, value).to.equal('INVALID_ARGUMENT');
      expect(result.json.error.details).to.deep.equal({ field: 'TASKDAG_REMOTE_RETRIES', value });
    }
    expect(proxy.connections).to.equal(connectionsBefore);
  });
});
