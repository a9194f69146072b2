import { expect } from 'chai';
import { Sandbox } from './cli.js';
import { answerOf, callFails, callOk, startMcp, type McpSession } from './mcp.js';

/**
 * Makes the sandbox's checkout a project that `taskdag mcp` and the CLI work in: `init` for a
 * local project; for a linked one, a `server run` with the checkout linked to it.
 */
export type PrepareCheckout = (sandbox: Sandbox) => Promise<void>;

/**
 * An agent's whole loop over MCP, and its failures, in whatever checkout `prepare` makes. The
 * scenario knows nothing of where the project lives: every setup step is a `taskdag` command, so
 * the same suite runs against a local project now and against a linked checkout on a real
 * `server run` once the remote client exists (add a `describe` with a `prepare` that starts the
 * server and links the checkout).
 */
export function agentLoopOverMcp(where: string, prepare: PrepareCheckout): void {
  describe(`an agent's loop over MCP, ${where}`, function () {
    this.timeout(60_000);
    let sandbox: Sandbox;
    let alice: McpSession;
    const state = () => sandbox.ok(['state']);

    beforeEach(async () => {
      sandbox = new Sandbox();
      await prepare(sandbox);
      await sandbox.ok(['add-initiative', 'billing', '--as', 'lead']);
      alice = await startMcp(sandbox, { after: ['--as', 'alice'] });
    });

    afterEach(async () => {
      await alice.close();
      sandbox.remove();
    });

    it('creates work, takes, submits, accepts with newly_ready, and resolves a gate', async () => {
      const schema = await callOk(alice, 'add-task', {
        id: 'T-schema',
        initiative: 'billing',
        title: 'Draft invoice schema',
        body: 'Fields and types',
        acceptance: 'Schema reviewed',
        blocked_by: [],
      });
      expect(schema.node).to.include({ id: 'T-schema', created_by: 'alice' });
      await callOk(alice, 'add-task', { id: 'T-api', initiative: 'billing', title: 'Invoice API', body: 'REST', acceptance: 'Tests pass', blocked_by: ['T-schema'] });
      await callOk(alice, 'add-gate', { id: 'G-db', initiative: 'billing', title: 'Pick a database', body: 'Two candidates', purpose: 'Storage' });
      await callOk(alice, 'add-task', { id: 'T-db', initiative: 'billing', title: 'Set up storage', body: 'Tables', acceptance: 'Migrated', blocked_by: ['G-db'] });

      const ready = await callOk(alice, 'status', { status: 'ready' });
      expect(ready.tasks.ready.map((task: { id: string }) => task.id)).to.deep.equal(['T-schema']);
      const taken = await callOk(alice, 'take', { id: 'T-schema' });
      expect(taken.freshly_claimed).to.equal(true);
      expect(taken.node.claim.by).to.equal('alice');
      await callOk(alice, 'add-note', { id: 'T-schema', text: 'Columns drafted' });
      const submitted = await callOk(alice, 'submit', { id: 'T-schema', note: 'Schema in docs/invoice.md, reviewed by tests' });
      expect(submitted.node.status).to.equal('submitted');

      const accepted = await callOk(alice, 'accept', { id: 'T-schema' });
      expect(accepted.node.status).to.equal('done');
      expect(accepted.newly_ready).to.deep.equal(['T-api']);
      const resolved = await callOk(alice, 'resolve', { id: 'G-db', choice: 'PostgreSQL', rationale: 'Already run' });
      expect(resolved.newly_ready).to.deep.equal(['T-db']);

      const context = await callOk(alice, 'context', { id: 'T-api' });
      expect(context.derived_status).to.equal('ready');
      expect((await state()).nodes['T-schema'].notes.map((note: { text: string }) => note.text)).to.deep.equal(['Columns drafted']);
    });

    it('answers the same JSON as the command line', async () => {
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'One', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead']);
      await sandbox.ok(['add-knowledge', 'K-cents', '--initiative', 'billing', '--title', 'Money is integer cents', '--body', 'Never floats', '--scope-tags', 'money', '--as', 'lead']);
      expect(await callOk(alice, 'status', {})).to.deep.equal(await sandbox.ok(['status']));
      expect(await callOk(alice, 'search', { query: 'cents' })).to.deep.equal(await sandbox.ok(['search', 'cents']));
      expect(await callOk(alice, 'context', { id: 'T-1' })).to.deep.equal(await sandbox.ok(['context', 'T-1', '--as', 'alice']));
    });

    it('fails as a tool error carrying the code and details, and changes nothing', async () => {
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'One', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead']);
      await sandbox.ok(['add-task', 'T-2', '--initiative', 'billing', '--title', 'Two', '--body', 'b', '--acceptance', 'a', '--blocked-by', 'T-1', '--as', 'lead']);
      await sandbox.ok(['take', 'T-1', '--as', 'bob']);
      const before = await state();

      expect(await callFails(alice, 'take', { id: 'T-1' })).to.deep.include({ code: 'ALREADY_CLAIMED' });
      const notReady = await callFails(alice, 'take', { id: 'T-2' });
      expect(notReady.code).to.equal('NOT_READY');
      expect(notReady.details).to.be.an('object');
      expect(await callFails(alice, 'submit', { id: 'T-1' })).to.deep.include({ code: 'MISSING_FIELD', details: { operation: 'submit', field: 'note', flag: '--note', missing: [{ field: 'note', flag: '--note' }] } });
      expect((await callFails(alice, 'take', { id: 'T-404' })).code).to.equal('NODE_NOT_FOUND');
      expect((await callFails(alice, 'add-task', { initiative: 'billing', title: 'x', body: '', acceptance: '', blocked_by: 'T-1' })).code).to.equal('INVALID_ARGUMENT');

      expect(await state()).to.deep.equal(before);
    });

    it('serves calls that arrive together, and two servers racing for one task yield one claim', async () => {
      const ids = Array.from({ length: 8 }, (_, index) => `T-${index}`);
      await Promise.all(
        ids.map((id) => callOk(alice, 'add-task', { id, initiative: 'billing', title: id, body: '', acceptance: 'a', blocked_by: [] })),
      );
      expect(Object.keys((await state()).nodes).sort()).to.deep.equal(ids);

      const bob = await startMcp(sandbox, { after: ['--as', 'bob'] });
      try {
        const outcomes = await Promise.all([alice, bob].map((session) => session.client.callTool({ name: 'take', arguments: { id: 'T-0' } })));
        const failures = outcomes.filter((outcome) => outcome.isError === true).map((outcome) => answerOf('take', outcome as never).error.code);
        expect(failures).to.deep.equal(['ALREADY_CLAIMED']);
        expect(['alice', 'bob']).to.include((await state()).nodes['T-0'].claim.by);
      } finally {
        await bob.close();
      }
    });

    it('hands in a task and claims the next in one call and one commit (batch); refuses items of another agent or of tools it does not offer, in its own terms', async () => {
      for (const id of ['T-1', 'T-2']) await sandbox.ok(['add-task', id, '--initiative', 'billing', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead']);
      const first = await callOk(alice, 'next', { lease: '15m' });
      expect(first.node.id).to.equal('T-1');
      const both = await callOk(alice, 'batch', {
        operations: [
          { op: 'submit', args: { id: 'T-1', note: 'Done; tests pass', claim_token: first.node.claim.token } },
          { op: 'next', args: { lease: '15m' } },
        ],
      });
      expect(both.results.map((item: { op: string }) => item.op)).to.deep.equal(['submit', 'next']);
      expect(both.results[1].result.node).to.include({ id: 'T-2' });
      const after = await state();
      expect(both.revision).to.equal(after.revision);
      expect(after.nodes['T-1'].status).to.equal('submitted');
      expect(after.nodes['T-2'].claim.by).to.equal('alice');

      const before = await state();
      const asAnother = await callFails(alice, 'batch', { operations: [{ op: 'add-note', args: { id: 'T-2', text: 'x' } }, { op: 'release', args: { id: 'T-2' }, as: 'mallory' }] });
      expect(asAnother).to.deep.include({ code: 'BATCH_OPERATION_FAILED' });
      expect(asAnother.details).to.deep.include({ index: 1, op: 'release' });
      expect(asAnother.details.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { field: 'as' } });
      const administration = await callFails(alice, 'batch', { operations: [{ op: 'cancel', args: { id: 'T-2' } }] });
      expect(administration.details).to.deep.include({ index: 0, op: 'cancel' });
      expect(administration.details.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { field: 'op', op: 'cancel' } });
      const missing = await callFails(alice, 'batch', { operations: [{ op: 'add-note', args: { id: 'T-2', text: 'x' } }, { op: 'submit', args: { id: 'T-2' } }] });
      expect(missing.details).to.deep.include({ index: 1, op: 'submit' });
      expect(missing.details.error.code).to.equal('MISSING_FIELD');
      expect(missing.message).to.include('note').and.not.include('--note');
      expect(await state()).to.deep.equal(before);
    });

    it('takes every identity from the start of the server: a call cannot name another agent', async () => {
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'One', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead']);
      const before = await state();
      const refused = await callFails(alice, 'take', { id: 'T-1', as: 'mallory' });
      expect(refused).to.deep.include({ code: 'INVALID_ARGUMENT' });
      expect(refused.details).to.include({ operation: 'take', field: 'as' });
      expect(await state()).to.deep.equal(before);

      const fromEnvironment = await startMcp(sandbox, { env: { TASKDAG_AGENT: 'carol' } });
      try {
        expect((await callOk(fromEnvironment, 'take', { id: 'T-1' })).node.claim.by).to.equal('carol');
      } finally {
        await fromEnvironment.close();
      }
    });
  });
}
