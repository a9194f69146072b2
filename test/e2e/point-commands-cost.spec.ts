import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';

/**
 * What a point command pays beyond Node's own start-up and its answer (issue 28: within 1.5x of
 * `node -e 0` at 10k nodes). Each case is work a command did that its answer does not need.
 */
describe('what a point command costs beyond its answer', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'cost', '--as', 'probe']);
  });
  after(() => sandbox.remove());

  /** The functions V8 compiled with TurboFan while `args` ran (`--trace-opt` lines), the exit status, and the answer printed between those lines. */
  function optimizedBy(args: string[]): { status: number | null; optimized: string[]; answer: any } {
    const run = spawnSync(process.execPath, ['--trace-opt', BINARY, ...args], { cwd: sandbox.checkout, env: sandbox.env(), encoding: 'utf8', timeout: 20_000 });
    const lines = run.stdout.split('\n');
    const traced = (line: string) => line.startsWith('[') && (line.includes('TURBOFAN') || line.includes('optimiz'));
    return {
      status: run.status,
      optimized: lines.filter((line) => traced(line) && line.includes('TURBOFAN')),
      answer: JSON.parse(lines.filter((line) => !traced(line)).join('\n')),
    };
  }

  it('replays a ledger tail of 24 KB, as a busy project has between checkpoints, without compiling a hot loop on the way', async () => {
    // One record of 15 tasks with a body of 1 KB each: under the 32 KB that call for a checkpoint.
    const operations = Array.from({ length: 15 }, (_, at) => ({
      op: 'add-task',
      args: { id: `T-cost${at}`, initiative: 'cost', title: `task ${at}`, body: 'b'.repeat(1_000), acceptance: 'a', blocked_by: [] },
    }));
    const batch = path.join(sandbox.root, 'batch.json');
    writeFileSync(batch, JSON.stringify({ operations }));
    await sandbox.ok(['batch', '--file', batch, '--as', 'probe']);
    // Every record replayed is checked against its CRC-32: in JavaScript, a loop V8 optimizes on a background thread past some 10 KB.
    for (const args of [['show', 'T-cost3'], ['update', 'T-cost3', '--title', 'x', '--as', 'probe'], ['add-note', 'T-cost4', 'noted', '--as', 'probe']]) {
      const { status, optimized } = optimizedBy(args);
      expect({ status, optimized }, args.join(' ')).to.deep.equal({ status: 0, optimized: [] });
    }
  });

  it("finds an accepted task's dependents in the checkpoint's slot table without compiling a hot loop on the way", async () => {
    // A batch past the 32 KB that call for a checkpoint: the next load finds these nodes through the slot table.
    const dependents = Array.from({ length: 12 }, (_, at) => `T-after${at}`);
    const operations = [
      { op: 'add-task', args: { id: 'T-first', initiative: 'cost', title: 'first', body: 'b', acceptance: 'a', blocked_by: [] } },
      ...dependents.map((id) => ({ op: 'add-task', args: { id, initiative: 'cost', title: id, body: 'b'.repeat(3_000), acceptance: 'a', blocked_by: ['T-first'] } })),
    ];
    const batch = path.join(sandbox.root, 'dependents.json');
    writeFileSync(batch, JSON.stringify({ operations }));
    await sandbox.ok(['batch', '--file', batch, '--as', 'probe']);
    await sandbox.ok(['take', 'T-first', '--as', 'probe']);
    await sandbox.ok(['submit', 'T-first', '--note', 'done', '--as', 'probe']);
    // Each lookup parses some thirty hex fields of a bucket: digit by digit, a loop V8 optimized.
    const { status, optimized, answer } = optimizedBy(['accept', 'T-first', '--as', 'reviewer']);
    expect({ status, optimized }).to.deep.equal({ status: 0, optimized: [] });
    expect([...(answer.newly_ready as string[])].sort()).to.deep.equal([...dependents].sort());
  });
});
