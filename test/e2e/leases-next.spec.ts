import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { Sandbox, type CliResult } from '../support/cli.js';
import { linkedClient, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { callOk, startMcp } from '../support/mcp.js';
import { request } from '../support/server-process.js';

const CALLERS = 32;
const CHECKOUTS = 4;

/** `count` ready tasks with no blockers in initiative `work`, made in one batch. */
async function readyTasks(sandbox: Sandbox, count: number): Promise<void> {
  await sandbox.ok(['add-initiative', 'work', '--as', 'planner']);
  const operations = Array.from({ length: count }, (_, i) => ({
    op: 'add-task',
    args: { id: `T-${String(i).padStart(3, '0')}`, initiative: 'work', title: `task ${i}`, body: 'b', acceptance: 'a', blocked_by: [] },
  }));
  await sandbox.ok(['batch', '--stdin', '--as', 'planner'], { input: JSON.stringify({ operations }) });
}

/** The tasks the successful `next` calls claimed, and the exit statuses of all of them. */
function claimed(results: CliResult[]): { ids: string[]; codes: (number | null)[] } {
  return { ids: results.map((result) => result.json?.node?.id), codes: results.map((result) => result.code) };
}

/** Polls `probe` until it holds, for at most `ms`: the scheduled sweep runs on the server's own clock. */
async function eventually(probe: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Waits out a lease: leases are real time (1 s at least), the one wait these tests cannot avoid. */
const outlive = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('e2e: leases, fencing tokens and next', function () {
  this.timeout(120_000);

  describe('local project (CLI processes)', () => {
    let sandbox: Sandbox;
    beforeEach(async () => {
      sandbox = new Sandbox();
      await sandbox.init();
    });
    afterEach(() => sandbox.remove());

    it(`${CALLERS} processes calling next at once get ${CALLERS} different tasks`, async () => {
      await readyTasks(sandbox, CALLERS + 8);
      const results = await Promise.all(Array.from({ length: CALLERS }, (_, i) => sandbox.run(['next', '--as', `agent-${i}`], { timeoutMs: 90_000 })));
      const { ids, codes } = claimed(results);
      expect(codes).to.deep.equal(Array(CALLERS).fill(0));
      expect(new Set(ids).size, 'distinct tasks').to.equal(CALLERS);
      const status = await sandbox.ok(['status', '--limit', '100']);
      expect(status.summary).to.include({ in_progress: CALLERS, ready: 8 });
      // All equal in priority and path: the oldest went first, so the newest 8 are left.
      expect(status.tasks.ready.map((entry: any) => entry.id)).to.deep.equal(Array.from({ length: 8 }, (_, i) => `T-0${CALLERS + i}`));
    });

    it("a holder whose lease was swept is refused with CLAIM_FENCED when it submits late; the new holder's claim stands", async () => {
      await readyTasks(sandbox, 1);
      const first = await sandbox.ok(['next', '--lease', '1s', '--as', 'alice']);
      const token = first.node.claim.token;
      expect(first.node.claim).to.include({ by: 'alice', lease_ms: 1000 });
      await outlive(1100);
      const refusedSweep = await sandbox.run(['sweep-leases', '--as', 'alice']);
      expect([refusedSweep.code, refusedSweep.json.error.code]).to.deep.equal([1, 'NOT_OWNER']);
      const swept = await sandbox.ok(['sweep-leases', '--as', 'recovery']);
      expect(swept.released.map((claim: any) => [claim.id, claim.by, claim.token])).to.deep.equal([['T-000', 'alice', token]]);
      const bob = await sandbox.ok(['take', 'T-000', '--as', 'bob']);
      const before = await sandbox.ok(['state']);

      const late = await sandbox.run(['submit', 'T-000', '--note', 'my late work', '--claim-token', String(token), '--as', 'alice']);
      expect(late.code).to.equal(1);
      expect(late.json.error.code).to.equal('CLAIM_FENCED');
      expect(late.json.error.details).to.deep.equal({ id: 'T-000', action: 'submit', token, status: 'in_progress', held_by: 'bob', held_token: bob.node.claim.token });
      expect(await sandbox.ok(['state'])).to.deep.equal(before);
      const history = await sandbox.ok(['history', 'T-000']);
      expect(history.entries.map((entry: any) => [entry.op, entry.by])).to.deep.include(['lease-expired', 'recovery']);
    });

    it('MCP offers next and renew: the best task with why, and its lease renewed', async () => {
      await readyTasks(sandbox, 2);
      await sandbox.ok(['update', 'T-001', '--priority', '0', '--as', 'planner']);
      const session = await startMcp(sandbox, { env: { TASKDAG_AGENT: 'mia' } });
      try {
        const chosen = await callOk(session, 'next', { lease: '10m' });
        expect(chosen.node.id).to.equal('T-001');
        expect(chosen.why).to.include({ priority: 0, rank: 1 });
        const renewed = await callOk(session, 'renew', { id: 'T-001', lease: '20m', claim_token: chosen.node.claim.token });
        expect(renewed.node.claim).to.include({ lease_ms: 1_200_000, token: chosen.node.claim.token });
      } finally {
        await session.close();
      }
    });
  });

  describe('linked checkouts on a real server', () => {
    let linked: LinkedServer;
    const clients: Sandbox[] = [];
    before(async () => {
      linked = await startLinkedServer();
    });
    after(async () => {
      for (const client of clients) client.remove();
      await linked.close();
    });

    it(`${CALLERS} next calls at once from ${CHECKOUTS} checkouts get ${CALLERS} different tasks`, async () => {
      const first = await linkedClient(linked);
      clients.push(first);
      await readyTasks(first, CALLERS + 4);
      const projectId = JSON.parse(readFileSync(`${first.checkout}/.taskdag.json`, 'utf8')).project_id;
      for (let i = 1; i < CHECKOUTS; i++) {
        const client = await linkedClient(linked, { init: false });
        writeFileSync(`${client.checkout}/.taskdag.json`, JSON.stringify({ project_id: projectId, backend: JSON.parse(readFileSync(`${first.checkout}/.taskdag.json`, 'utf8')).backend }));
        clients.push(client);
      }
      const results = await Promise.all(
        Array.from({ length: CALLERS }, (_, i) => clients[i % CHECKOUTS]!.run(['next', '--initiative', 'work', '--as', `agent-${i}`], { timeoutMs: 90_000 })),
      );
      const { ids, codes } = claimed(results);
      expect(codes).to.deep.equal(Array(CALLERS).fill(0));
      expect(new Set(ids).size, 'distinct tasks').to.equal(CALLERS);
      expect((await first.ok(['status'])).summary).to.include({ in_progress: CALLERS, ready: 4 });
    });

    it('a swept holder submitting late through a linked checkout is refused with CLAIM_FENCED (HTTP 409), nothing written', async () => {
      const client = await linkedClient(linked);
      clients.push(client);
      await readyTasks(client, 1);
      const token = (await client.ok(['take', 'T-000', '--lease', '1s', '--as', 'alice'])).node.claim.token;
      await outlive(1100);
      expect((await client.ok(['sweep-leases', '--as', 'recovery'])).released).to.have.length(1);
      await client.ok(['next', '--as', 'bob']);
      const before = await client.ok(['state']);
      const late = await client.run(['submit', 'T-000', '--note', 'late', '--claim-token', String(token), '--as', 'alice']);
      expect([late.code, late.json.error.code]).to.deep.equal([1, 'CLAIM_FENCED']);
      expect(late.json.error.details).to.include({ held_by: 'bob', token });
      // The same refusal on the wire: a conflict, in the CLI's envelope.
      const checkout = JSON.parse(readFileSync(`${client.checkout}/.taskdag.json`, 'utf8'));
      const bearer = JSON.parse(readFileSync(`${client.home}/.taskdag/remote-sessions.json`, 'utf8')).sessions[linked.origin].bearer;
      const wire = await request(linked.origin, 'POST', `/v1/projects/${checkout.project_id}/ops/release`, {
        headers: { Authorization: `Bearer ${bearer}` },
        body: { args: { id: 'T-000', claim_token: token }, agent: 'alice' },
      });
      expect([wire.status, wire.json.error.code]).to.deep.equal([409, 'CLAIM_FENCED']);
      expect(await client.ok(['state'])).to.deep.equal(before);
    });

    it('with leaseSweepMs in server.json, the server sweeps expired leases on its own, as recovery', async () => {
      writeFileSync(linked.config, JSON.stringify({ ...JSON.parse(readFileSync(linked.config, 'utf8')), leaseSweepMs: 1000 }));
      await linked.restart();
      const client = await linkedClient(linked);
      clients.push(client);
      await readyTasks(client, 2);
      await client.ok(['take', 'T-000', '--lease', '1s', '--as', 'alice']);
      await client.ok(['take', 'T-001', '--as', 'carol']);
      const released = await eventually(async () => (await client.ok(['show', 'T-000'])).node.claim === null, 15_000);
      expect(released, 'T-000 released by the scheduled sweep').to.equal(true);
      const history = await client.ok(['history', 'T-000']);
      expect(history.entries.at(-1)).to.include({ op: 'lease-expired', by: 'recovery', released_from: 'alice' });
      // A claim without a lease is never swept.
      expect((await client.ok(['show', 'T-001'])).node.claim).to.include({ by: 'carol' });
    });
  });
});
