import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { linkedClient, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { callFails, callOk, startMcp, type McpSession } from '../support/mcp.js';

/** Every required argument of add-task, in declaration order, as a command line spells it. */
const ADD_TASK_REQUIRED = [
  { field: 'initiative', flag: '--initiative' },
  { field: 'title', flag: '--title' },
  { field: 'body', flag: '--body' },
  { field: 'acceptance', flag: '--acceptance' },
  { field: 'blocked_by', flag: '--blocked-by' },
];

const addTask = (id: string, blockedBy = '') => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', blockedBy, '--as', 'lead'];

/**
 * The latest rejection travels with the task: `show`, `take` and `context` carry it from the
 * reject on, through the next submission, until an acceptance clears it.
 */
async function rejectionTravelsWithTheTask(sandbox: Sandbox): Promise<void> {
  await sandbox.ok(addTask('T-1'));
  expect((await sandbox.ok(['show', 'T-1'])).node).not.to.have.property('rejection');
  await sandbox.ok(['take', 'T-1', '--as', 'alice']);
  await sandbox.ok(['submit', 'T-1', '--note', 'done', '--as', 'alice']);
  const rejected = (await sandbox.ok(['reject', 'T-1', '--reason', 'No tests for the rounding', '--as', 'bob'])).node;
  expect(rejected.rejection).to.include({ reason: 'No tests for the rounding', by: 'bob' });
  expect(rejected.rejection.at).to.be.a('string');
  const { rejection } = rejected;
  expect((await sandbox.ok(['show', 'T-1'])).node.rejection).to.deep.equal(rejection);
  expect((await sandbox.ok(['context', 'T-1', '--as', 'alice'])).node.rejection).to.deep.equal(rejection);
  const taken = await sandbox.ok(['take', 'T-1', '--as', 'alice']);
  expect(taken.node.rejection, 'take').to.deep.equal(rejection);
  expect(taken.context.node.rejection, "take's context").to.deep.equal(rejection);
  expect((await sandbox.ok(['submit', 'T-1', '--note', 'tests added', '--as', 'alice'])).node.rejection, 'the reviewer sees it').to.deep.equal(rejection);
  const accepted = (await sandbox.ok(['accept', 'T-1', '--as', 'bob'])).node;
  expect(accepted.status).to.equal('done');
  expect(accepted).not.to.have.property('rejection');
  expect((await sandbox.ok(['show', 'T-1'])).node).not.to.have.property('rejection');
  const reasons = (await sandbox.ok(['history', 'T-1'])).entries.filter((entry: { op: string }) => entry.op === 'reject');
  expect(reasons.map((entry: { reason: string }) => entry.reason), 'the log keeps every reason').to.deep.equal(['No tests for the rounding']);
}

/** T-c waits on T-b and the open gate G-1; T-b waits on T-a, which is ready: the open roots are G-1 and T-a. */
async function blockedChain(sandbox: Sandbox): Promise<void> {
  await sandbox.ok(addTask('T-a'));
  await sandbox.ok(['add-gate', 'G-1', '--initiative', 'core', '--title', 'Which currency', '--body', 'b', '--purpose', 'decide', '--as', 'lead']);
  await sandbox.ok(addTask('T-b', 'T-a'));
  await sandbox.ok(addTask('T-c', 'T-b,G-1'));
}

const C_BLOCKERS = { direct: ['G-1', 'T-b'], direct_count: 2, open_roots: ['G-1', 'T-a'], open_roots_count: 2 };

/** A blocked task names its direct blockers and the open roots they wait on, in NOT_READY and in `status`. */
async function blockersInPlainView(sandbox: Sandbox): Promise<void> {
  await blockedChain(sandbox);
  const before = (await sandbox.run(['state'])).stdout;
  const refused = await sandbox.run(['take', 'T-c', '--as', 'alice']);
  expect(refused.code).to.equal(1);
  expect(refused.json.error.code).to.equal('NOT_READY');
  expect(refused.json.error.details).to.deep.equal({ id: 'T-c', status: 'blocked', blockers: C_BLOCKERS });
  expect((await sandbox.run(['state'])).stdout, 'a refused take writes nothing').to.equal(before);
  const blocked = (await sandbox.ok(['status'])).tasks.blocked;
  expect(blocked.map((entry: { id: string; blockers: unknown }) => [entry.id, entry.blockers])).to.deep.equal([
    ['T-b', { direct: ['T-a'], direct_count: 1, open_roots: ['T-a'], open_roots_count: 1 }],
    ['T-c', C_BLOCKERS],
  ]);
  expect((await sandbox.ok(['status'])).tasks.ready.every((entry: object) => !('blockers' in entry)), 'only blocked tasks carry them').to.equal(true);
  await sandbox.ok(['resolve', 'G-1', '--choice', 'EUR', '--rationale', 'market', '--as', 'lead']);
  const afterResolve = await sandbox.run(['take', 'T-c', '--as', 'alice']);
  expect(afterResolve.json.error.details.blockers).to.deep.equal({ direct: ['T-b'], direct_count: 1, open_roots: ['T-a'], open_roots_count: 1 });
}

/**
 * What an agent needs next, in plain view (issue 26 item 3), through every driver an agent uses:
 * the command line, a batch, MCP, HTTP and a checkout linked to a real `server run`.
 */
describe('what an agent needs, in plain view', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let sessions: McpSession[];

  beforeEach(async () => {
    sandbox = new Sandbox();
    sessions = [];
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
  });

  afterEach(async () => {
    for (const session of sessions) await session.close();
    sandbox.remove();
  });

  const mcp = async (agent = 'alice') => {
    const session = await startMcp(sandbox, { after: ['--as', agent] });
    sessions.push(session);
    return session;
  };

  describe('every missing required flag at once', () => {
    it('the command line names all five of add-task in one MISSING_FIELD, and writes nothing', async () => {
      const before = (await sandbox.run(['state'])).stdout;
      const result = await sandbox.run(['add-task', '--as', 'alice']);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('MISSING_FIELD');
      expect(result.json.error.message).to.equal('add-task requires --initiative, --title, --body, --acceptance and --blocked-by');
      expect(result.json.error.details).to.deep.equal({ operation: 'add-task', field: 'initiative', flag: '--initiative', missing: ADD_TASK_REQUIRED });
      const some = await sandbox.run(['add-task', '--title', 't', '--initiative', 'core', '--as', 'alice']);
      expect(some.json.error.details.missing.map((missing: { field: string }) => missing.field)).to.deep.equal(['body', 'acceptance', 'blocked_by']);
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });

    it('a batch item names them all in its inner error, and the batch applies nothing', async () => {
      const before = (await sandbox.run(['state'])).stdout;
      const plan = JSON.stringify({ operations: [{ op: 'add-initiative', args: { name: 'other' } }, { op: 'add-task', args: { id: 'T-1' } }] });
      const result = await sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: plan });
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal('BATCH_OPERATION_FAILED');
      expect(result.json.error.details.index).to.equal(1);
      expect(result.json.error.details.error.code).to.equal('MISSING_FIELD');
      expect(result.json.error.details.error.details.missing).to.deep.equal(ADD_TASK_REQUIRED);
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });

    it('an MCP call names them all as the tool parameters they are, never as flags', async () => {
      const before = (await sandbox.run(['state'])).stdout;
      const error = await callFails(await mcp(), 'add-task', {});
      expect(error.code).to.equal('MISSING_FIELD');
      expect(error.message).to.equal('add-task requires the parameters initiative, title, body, acceptance and blocked_by');
      expect(error.message).not.to.contain('--');
      expect(error.details.missing).to.deep.equal(ADD_TASK_REQUIRED);
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    });

    it('other MCP failures speak of parameters too: a flag of the command line never shows', async () => {
      const session = await mcp();
      const unregistered = await callFails(session, 'add-task', { initiative: 'nope', title: 't', body: '', acceptance: 'a', blocked_by: [] });
      expect(unregistered.code).to.equal('INITIATIVE_NOT_FOUND');
      expect(unregistered.message).to.contain('allow_unregistered_initiative').and.not.contain('--');
      const badStatus = await callFails(session, 'status', { status: 'sleeping' });
      expect([badStatus.code, badStatus.message.startsWith('status must be one of')]).to.deep.equal(['INVALID_ARGUMENT', true]);
      const anonymous = await startMcp(sandbox);
      sessions.push(anonymous);
      const noAgent = await callFails(anonymous, 'add-initiative', { name: 'x' });
      expect(noAgent.code).to.equal('MISSING_AGENT');
      expect(noAgent.message).to.contain('taskdag mcp --as <agent>');
    });

    describe('over HTTP', () => {
      let api: ApiServer;
      before(async () => {
        api = await startApiServer();
      });
      after(async () => api.close());

      it('a POST to the operation names them all: 400 MISSING_FIELD, nothing created', async () => {
        expect((await api.op('p-missing', 'init', {}, null)).status).to.equal(200);
        expect((await api.op('p-missing', 'add-initiative', { name: 'core' })).status).to.equal(200);
        const answer = await api.op('p-missing', 'add-task', {});
        expect(answer.status).to.equal(400);
        expect(answer.json.error.code).to.equal('MISSING_FIELD');
        expect(answer.json.error.details.missing).to.deep.equal(ADD_TASK_REQUIRED);
        expect((await api.op('p-missing', 'status', {}, null)).json.summary.ready).to.equal(0);
      });
    });
  });

  describe('MCP offers what an agent needs to understand its work', () => {
    it('add-initiative, show and history answer what the commands print', async () => {
      const session = await mcp();
      expect(await callOk(session, 'add-initiative', { name: 'billing', desc: 'Money' })).to.have.nested.property('initiative.name', 'billing');
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'Invoice', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
      await sandbox.ok(['add-note', 'T-1', 'first', 'note', '--as', 'alice']);
      expect(await callOk(session, 'show', { id: 'T-1' })).to.deep.equal(await sandbox.ok(['show', 'T-1']));
      const history = await callOk(session, 'history', { id: 'T-1' });
      expect(history).to.deep.equal(await sandbox.ok(['history', 'T-1']));
      expect(history.entries.map((entry: { op: string }) => entry.op)).to.deep.equal(['add-task', 'add-note']);
    });
  });

  describe('the latest rejection travels with the task', () => {
    it('on the command line: show, context and take carry it until accept clears it', async () => {
      await rejectionTravelsWithTheTask(sandbox);
    });

    it('over MCP: the agent that takes rejected work reads why in the answer', async () => {
      await sandbox.ok(addTask('T-1'));
      await sandbox.ok(['take', 'T-1', '--as', 'alice']);
      await sandbox.ok(['submit', 'T-1', '--note', 'done', '--as', 'alice']);
      await sandbox.ok(['reject', 'T-1', '--reason', 'Wrong currency', '--as', 'bob']);
      const taken = await callOk(await mcp('alice'), 'take', { id: 'T-1' });
      expect(taken.node.rejection).to.include({ reason: 'Wrong currency', by: 'bob' });
    });

    describe('in a checkout linked to a real server run', () => {
      let server: LinkedServer;
      let client: Sandbox;
      before(async () => {
        server = await startLinkedServer();
      });
      after(async () => server.close());
      beforeEach(async () => {
        client = await linkedClient(server);
        await client.ok(['add-initiative', 'core', '--as', 'lead']);
      });
      afterEach(() => client.remove());

      it('show, context and take carry it until accept clears it, as locally', async () => {
        await rejectionTravelsWithTheTask(client);
      });

      it('a blocked task names its blockers and their open roots in NOT_READY and status, as locally', async () => {
        await blockersInPlainView(client);
      });
    });
  });

  describe('a blocked task names what it waits on', () => {
    it('on the command line: NOT_READY details and status entries name the direct blockers and the open roots', async () => {
      await blockersInPlainView(sandbox);
    });

    it('over MCP: the refused take and the status tool say the same', async () => {
      await blockedChain(sandbox);
      const session = await mcp('alice');
      const refused = await callFails(session, 'take', { id: 'T-c' });
      expect(refused).to.deep.include({ code: 'NOT_READY', details: { id: 'T-c', status: 'blocked', blockers: C_BLOCKERS } });
      const blocked = (await callOk(session, 'status', { status: 'blocked' })).tasks.blocked;
      expect(blocked.find((entry: { id: string }) => entry.id === 'T-c').blockers).to.deep.equal(C_BLOCKERS);
    });
  });
});
