import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { BINARY, Sandbox, type CliResult } from '../support/cli.js';
import { linkedClient, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { callFails, callOk, startMcp } from '../support/mcp.js';

/** T-first ready, T-then blocked by it: an agent waiting with `next --wait` can only get T-then once T-first is accepted. */
async function chainOfTwo(sandbox: Sandbox): Promise<void> {
  await sandbox.ok(['add-initiative', 'work', '--as', 'planner']);
  const task = (id: string, blockedBy: string[]) => ({ op: 'add-task', args: { id, initiative: 'work', title: id, body: 'b', acceptance: 'a', blocked_by: blockedBy } });
  await sandbox.ok(['batch', '--stdin', '--as', 'planner'], { input: JSON.stringify({ operations: [task('T-first', []), task('T-then', ['T-first'])] }) });
  await sandbox.ok(['take', 'T-first', '--as', 'alice']);
}

/** alice hands T-first in and bob accepts it, from `sandbox` (another process than the waiter); resolves to when the accept answered. */
async function finishFirst(sandbox: Sandbox): Promise<number> {
  await sandbox.ok(['submit', 'T-first', '--note', 'done', '--as', 'alice']);
  await sandbox.ok(['accept', 'T-first', '--as', 'bob']);
  return Date.now();
}

/**
 * Starts `taskdag mcp` in `sandbox`'s checkout as agent ghost, calls `next` with a 60 s wait, lets it wait `settleMs`,
 * then closes its input (MCP's stdio shutdown) and makes T-then ready (`settleAfterMs` after the close).
 * Resolves to whether the session ended within 5 s of the close and with which exit code.
 */
async function closeWhileNextWaits(sandbox: Sandbox, settleMs: number, settleAfterMs: number): Promise<{ code: number | null; within5s: boolean } | null> {
  const mcp = spawn(process.execPath, [BINARY, 'mcp'], { cwd: sandbox.checkout, env: sandbox.env({ TASKDAG_AGENT: 'ghost' }) });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => mcp.on('exit', (code) => resolve({ code, at: Date.now() })));
  try {
    const send = (message: unknown) => mcp.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'next', arguments: { wait: 60 } } });
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const closedAt = Date.now();
    mcp.stdin.end();
    const ended = await Promise.race([exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000))]);
    if (settleAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, settleAfterMs));
    await finishFirst(sandbox);
    if (settleAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, 2 * settleAfterMs));
    return ended === null ? null : { code: ended.code, within5s: ended.at - closedAt < 5_000 };
  } finally {
    mcp.kill('SIGKILL');
  }
}

const EMPTY = { node: null, context: null, why: null };

/**
 * The first in line (agent dies) is killed (SIGKILL, its time to run over) before anything is ready, with carol
 * waiting behind it; `settleMs` after the kill, T-then is readied from `sandbox`. Checks that carol claims it within
 * 5 s of the accept.
 */
async function killHeadOfLineThenReady(sandbox: Sandbox, behindTimeoutMs: number, settleMs: number): Promise<void> {
  const killed = sandbox.run(['next', '--wait', '60', '--as', 'dies'], { timeoutMs: 2_500 }).catch((error: unknown) => error);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const behind = sandbox.run(['next', '--wait', '60', '--as', 'carol'], { timeoutMs: behindTimeoutMs }).then((answer) => ({ answer, answeredAt: Date.now() }));
  await killed;
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  const unblockedAt = await finishFirst(sandbox);
  const { answer, answeredAt } = await behind;
  expect(answer.code).to.equal(0);
  expect(answer.json.node).to.include({ id: 'T-then', status: 'in_progress' });
  expect(answer.json.node.claim.by).to.equal('carol');
  expect(answeredAt - unblockedAt, 'answered after the accept, ms').to.be.below(5_000);
}

/** Runs `waiting` (a call that waits), lets it start waiting, then runs `meanwhile`; both results, and when each answered. */
async function whileWaiting<T>(waiting: () => Promise<T>, meanwhile: () => Promise<number>): Promise<{ answer: T; answeredAt: number; unblockedAt: number }> {
  const pending = waiting().then((answer) => ({ answer, answeredAt: Date.now() }));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const unblockedAt = await meanwhile();
  return { ...(await pending), unblockedAt };
}

describe('e2e: next --wait', function () {
  this.timeout(120_000);

  describe('local project', () => {
    let sandbox: Sandbox;
    beforeEach(async () => {
      sandbox = new Sandbox();
      await sandbox.init();
      await chainOfTwo(sandbox);
    });
    afterEach(() => sandbox.remove());

    it("returns the task another process's accept made ready, as soon as it is, claimed for the waiter", async () => {
      const started = Date.now();
      const { answer, answeredAt, unblockedAt } = await whileWaiting(() => sandbox.run(['next', '--wait', '60', '--as', 'carol'], { timeoutMs: 90_000 }), () => finishFirst(sandbox));
      expect(answer.code).to.equal(0);
      expect(answer.json.node).to.include({ id: 'T-then', status: 'in_progress' });
      expect(answer.json.node.claim.by).to.equal('carol');
      expect(answer.json.why.rank).to.equal(1);
      // Woken by the commit (fs.watch), not by the end of its wait: well within a 60 s wait.
      expect(answeredAt - unblockedAt, 'answered after the accept, ms').to.be.below(5_000);
      expect(answeredAt - started).to.be.below(30_000);
    });

    it('waiting processes in line: an accept that readies three tasks gives one to each of three of five, at once; the other two answer no task when their wait ends', async () => {
      const task = (id: string) => ({ op: 'add-task', args: { id, initiative: 'work', title: id, body: 'b', acceptance: 'a', blocked_by: ['T-first'] } });
      await sandbox.ok(['batch', '--stdin', '--as', 'planner'], { input: JSON.stringify({ operations: [task('T-a'), task('T-b')] }) });
      const agents = ['w1', 'w2', 'w3', 'w4', 'w5'];
      const waits = agents.map((agent) => sandbox.run(['next', '--wait', '12', '--as', agent], { timeoutMs: 90_000 }).then((answer) => ({ answer, answeredAt: Date.now() })));
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const unblockedAt = await finishFirst(sandbox);
      const answers = await Promise.all(waits);
      const claimed = answers.filter(({ answer }) => answer.json.node !== null);
      expect(answers.map(({ answer }) => answer.code)).to.deep.equal([0, 0, 0, 0, 0]);
      expect(claimed.map(({ answer }) => answer.json.node.id).sort()).to.deep.equal(['T-a', 'T-b', 'T-then']);
      expect(new Set(claimed.map(({ answer }) => answer.json.node.claim.by)).size).to.equal(3);
      for (const { answeredAt } of claimed) expect(answeredAt - unblockedAt, 'a claim after the accept, ms').to.be.below(6_000);
      const empty = answers.filter(({ answer }) => answer.json.node === null);
      expect(empty.map(({ answer }) => answer.json)).to.deep.equal([EMPTY, EMPTY]);
      const status = await sandbox.ok(['status', '--limit', '10']);
      expect(status.summary).to.include({ ready: 0, in_progress: 3 });
    });

    it('a waiter killed at the head of the line passes it on: the one behind it claims the task the next accept readies, at once', async () => {
      // The first in line is the only one watching for commits; it dies with its ticket file left behind.
      await killHeadOfLineThenReady(sandbox, 90_000, 0);
    });

    it('times out with the answer of no task (node, context and why null, exit 0), having changed nothing', async () => {
      const before = await sandbox.ok(['state']);
      const started = Date.now();
      const result: CliResult = await sandbox.run(['next', '--wait', '2', '--as', 'carol'], { timeoutMs: 30_000 });
      const took = Date.now() - started;
      expect([result.code, result.json]).to.deep.equal([0, EMPTY]);
      expect(took, 'waited its 2 s').to.be.at.least(2_000);
      expect(await sandbox.ok(['state'])).to.deep.equal(before);
    });

    it('refuses a wait past 600 s, and a wait inside a batch, changing nothing', async () => {
      const before = await sandbox.ok(['state']);
      const tooLong = await sandbox.run(['next', '--wait', '601', '--as', 'carol']);
      expect([tooLong.code, tooLong.json.error.code, tooLong.json.error.details.field]).to.deep.equal([1, 'INVALID_ARGUMENT', 'wait']);
      const batch = await sandbox.run(['batch', '--stdin', '--as', 'carol'], { input: JSON.stringify({ operations: [{ op: 'next', args: { wait: 5 } }] }) });
      expect(batch.code).to.equal(1);
      expect(batch.json.error.code).to.equal('BATCH_OPERATION_FAILED');
      expect(batch.json.error.details).to.include({ index: 0, op: 'next' });
      expect(await sandbox.ok(['state'])).to.deep.equal(before);
    });

    it('over MCP: a session whose client closes its input while next waits ends at once, and claims nothing for it', async () => {
      const ended = await closeWhileNextWaits(sandbox, 1_500, 0);
      expect(ended, 'the session ended within 5 s of its input closing').to.not.equal(null);
      expect([ended!.code, ended!.within5s]).to.deep.equal([0, true]);
      expect((await sandbox.ok(['show', 'T-then'])).node.claim).to.equal(null);
    });

    it('over MCP: next with wait returns the task an accept made ready', async () => {
      const session = await startMcp(sandbox, { env: { TASKDAG_AGENT: 'mia' } });
      try {
        const { answer, answeredAt, unblockedAt } = await whileWaiting(() => callOk(session, 'next', { wait: 50 }), () => finishFirst(sandbox));
        expect(answer.node).to.include({ id: 'T-then' });
        expect(answer.node.claim.by).to.equal('mia');
        expect(answeredAt - unblockedAt).to.be.below(5_000);
        expect(await callOk(session, 'next', { wait: 1 })).to.deep.equal(EMPTY);
        expect((await callFails(session, 'next', { wait: -1 })).code).to.equal('INVALID_ARGUMENT');
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

    it("one checkout's next --wait returns the task another checkout's accept made ready; a wait with nothing answers no task", async () => {
      const first = await linkedClient(linked);
      clients.push(first);
      await chainOfTwo(first);
      const second = await linkedClient(linked, { init: false });
      clients.push(second);
      writeFileSync(`${second.checkout}/.taskdag.json`, readFileSync(`${first.checkout}/.taskdag.json`));
      const { answer, answeredAt, unblockedAt } = await whileWaiting(() => second.run(['next', '--wait', '60', '--as', 'carol'], { timeoutMs: 90_000 }), () => finishFirst(first));
      expect(answer.code).to.equal(0);
      expect(answer.json.node).to.include({ id: 'T-then' });
      expect(answer.json.node.claim.by).to.equal('carol');
      // The server wakes the waiting request on the commit itself.
      expect(answeredAt - unblockedAt, 'answered after the accept, ms').to.be.below(5_000);

      const started = Date.now();
      const empty = await second.run(['next', '--wait', '2', '--as', 'dave'], { timeoutMs: 30_000 });
      expect([empty.code, empty.json]).to.deep.equal([0, EMPTY]);
      expect(Date.now() - started).to.be.at.least(2_000);
    });

    it('a waiting checkout killed at the head of the line claims nothing: the request behind it gets the task the next accept readies, at once', async () => {
      const first = await linkedClient(linked);
      clients.push(first);
      await chainOfTwo(first);
      // Its process dies while its request waits on the server; the server hears the connection close.
      await killHeadOfLineThenReady(first, 30_000, 500);
      // The dead client's request ended when its connection closed: nothing was ever claimed for it.
      expect((await first.ok(['history', 'T-then'])).entries.map((entry: { by: string }) => entry.by)).to.not.include('dies');
    });

    it('over MCP in a linked checkout: a session whose client closes its input while next waits ends at once, and nothing is claimed for it on the server', async () => {
      const first = await linkedClient(linked);
      clients.push(first);
      await chainOfTwo(first);
      const ended = await closeWhileNextWaits(first, 2_000, 500);
      expect(ended, 'the session ended within 5 s of its input closing').to.not.equal(null);
      expect([ended!.code, ended!.within5s]).to.deep.equal([0, true]);
      expect((await first.ok(['show', 'T-then'])).node.claim).to.equal(null);
    });

    it('waiting requests in line on the server: an accept that readies two tasks gives one to each of two of four, at once; the others answer no task', async () => {
      const first = await linkedClient(linked);
      clients.push(first);
      await chainOfTwo(first);
      await first.ok(['add-task', 'T-too', '--initiative', 'work', '--title', 'too', '--body', 'b', '--acceptance', 'a', '--blocked-by', 'T-first', '--as', 'planner']);
      const waits = ['w1', 'w2', 'w3', 'w4'].map((agent) => first.run(['next', '--wait', '10', '--as', agent], { timeoutMs: 90_000 }).then((answer) => ({ answer, answeredAt: Date.now() })));
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const unblockedAt = await finishFirst(first);
      const answers = await Promise.all(waits);
      expect(answers.map(({ answer }) => answer.code)).to.deep.equal([0, 0, 0, 0]);
      const claimed = answers.filter(({ answer }) => answer.json.node !== null);
      expect(claimed.map(({ answer }) => answer.json.node.id).sort()).to.deep.equal(['T-then', 'T-too']);
      for (const { answeredAt } of claimed) expect(answeredAt - unblockedAt, 'a claim after the accept, ms').to.be.below(5_000);
      expect(answers.filter(({ answer }) => answer.json.node === null).map(({ answer }) => answer.json)).to.deep.equal([EMPTY, EMPTY]);
    });
  });
});
