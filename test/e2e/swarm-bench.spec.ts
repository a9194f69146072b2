import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli.js';

// The bench is plain JavaScript beside the sources; tests reach it through a dynamic import.
const SWARM = path.resolve(__dirname, '../../../bench/swarm.mjs');

describe('swarm bench (bench/swarm.mjs)', function () {
  this.timeout(180_000);
  let scratch: string;

  beforeEach(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-swarm-test-'));
  });

  afterEach(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('knows its plan: the critical path is the longest chain of durations, the bound the larger of it and work per agent', async () => {
    const { planFigures } = await import(SWARM);
    // 0 -> 1 -> 3 is the longest chain (2 + 5 + 1); 2 waits on 0 only.
    const plan = [
      { duration: 2, deps: [] },
      { duration: 5, deps: [0] },
      { duration: 4, deps: [0] },
      { duration: 1, deps: [1, 2] },
    ];
    expect(planFigures(plan, 1)).to.deep.include({ totalWork: 12, criticalPath: 8, bound: 12 });
    expect(planFigures(plan, 4)).to.deep.include({ criticalPath: 8, bound: 8 });
  });

  it('runs agent processes over MCP until every task of the DAG is done, each exactly once', async () => {
    const { runSwarm, swarmPlan } = await import(SWARM);
    const plan = swarmPlan(30);
    const result = await runSwarm({ arm: 'mcp', agents: 3, strategy: 'any', plan, unitMs: 5, scratch });
    const ids = plan.map((_: unknown, i: number) => `T-${String(i).padStart(5, '0')}`);
    expect([...result.done].sort()).to.deep.equal(ids);

    const status = await runCli(['status', '--all', '--limit', '100'], { ...result.place, timeoutMs: 30_000 });
    expect(status.code).to.equal(0);
    expect(status.json.tasks.done.map((task: { id: string }) => task.id).sort()).to.deep.equal(ids);
    expect(status.json.summary).to.include({ ready: 0, in_progress: 0, submitted: 0, blocked: 0 });
    expect(result).to.include({ arm: 'mcp', agents: 3, tasks: 30 });
  });

  it('runs MCP agents on checkouts linked to a server that hand a task in, accept it and claim the next in one batch tool call, and counts taskdag\'s CPU', async () => {
    const { runSwarm, swarmPlan } = await import(SWARM);
    const plan = swarmPlan(20);
    const result = await runSwarm({ arm: 'server-mcp', agents: 3, strategy: 'next', loop: 'batch', plan, unitMs: 5, scratch });
    const ids = plan.map((_: unknown, i: number) => `T-${String(i).padStart(5, '0')}`);
    expect([...result.done].sort()).to.deep.equal(ids);
    expect(result.by_op.batch.calls, 'a batch per task').to.equal(20);
    expect(result.by_op).to.not.have.any.keys('submit', 'accept');
    // The MCP sessions' and the server's CPU: tens of milliseconds a task at least, never nothing.
    expect(result.taskdag_cpu_ms_per_task).to.be.above(0);
  });

  it('runs CLI agents that hand a task in, accept it and claim the next in one batch, each task exactly once', async () => {
    const { runSwarm, swarmPlan } = await import(SWARM);
    const plan = swarmPlan(20);
    const result = await runSwarm({ arm: 'cli', agents: 3, strategy: 'next', loop: 'batch', plan, unitMs: 5, scratch });
    const ids = plan.map((_: unknown, i: number) => `T-${String(i).padStart(5, '0')}`);
    expect([...result.done].sort()).to.deep.equal(ids);
    expect(result.by_op.batch.calls, 'a batch per task').to.equal(20);
    expect(result.by_op).to.not.have.any.keys('submit', 'accept');
    const status = await runCli(['status', '--all', '--limit', '100'], { ...result.place, timeoutMs: 30_000 });
    expect(status.json.tasks.done.map((task: { id: string }) => task.id).sort()).to.deep.equal(ids);
    expect(status.json.summary).to.include({ ready: 0, in_progress: 0, submitted: 0, blocked: 0 });
  });

  it('refuses the batch loop with any other picking than next, whose claim the batch makes', async () => {
    const { runSwarm, swarmPlan } = await import(SWARM);
    const failure = await runSwarm({ arm: 'mcp', agents: 1, strategy: 'any', loop: 'batch', plan: swarmPlan(2), unitMs: 5, scratch }).then(() => null, (error: Error) => error);
    expect(failure?.message).to.match(/--loop batch needs --strategies next/);
  });

  it('kills a third of the agents mid-run, and with leases swept the others still do every task exactly once', async () => {
    const { runRecovery, swarmPlan } = await import(SWARM);
    const plan = swarmPlan(30);
    const result = await runRecovery({ arm: 'mcp', agents: 6, plan, unitMs: 5, scratch, lease: '3s', sweepMs: 200 });
    const ids = plan.map((_: unknown, i: number) => `T-${String(i).padStart(5, '0')}`);
    expect(result.killed).to.equal(2);
    expect([...result.done].sort()).to.deep.equal(ids);
    const status = await runCli(['status', '--all', '--limit', '100'], { ...result.place, timeoutMs: 30_000 });
    expect(status.json.tasks.done.map((task: { id: string }) => task.id).sort()).to.deep.equal(ids);
    expect(status.json.summary).to.include({ ready: 0, in_progress: 0, submitted: 0, blocked: 0 });
  });
});
