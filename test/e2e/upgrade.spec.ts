import { expect } from 'chai';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';

/** Projects written by the released 0.1.0 binary (commit 18ce57d), files as it left them. */
const RELEASED = path.resolve(__dirname, '../../../test/fixtures/release-0.1.0');

/** A sandbox holding the released project `name`: its state under TASKDAG_HOME, its checkout's `.taskdag.json`. */
function withReleased(name: string): Sandbox {
  const sandbox = new Sandbox();
  mkdirSync(path.join(sandbox.home, '.taskdag'), { recursive: true });
  cpSync(path.join(RELEASED, name, 'projects'), path.join(sandbox.home, '.taskdag', 'projects'), { recursive: true });
  cpSync(path.join(RELEASED, name, 'checkout'), sandbox.checkout, { recursive: true });
  return sandbox;
}

/**
 * The next release opens what the last one wrote. 0.1.0 left `notes` out of a change set that
 * appended none; a reader that wanted the list refused every project it had written as damaged.
 */
describe('projects written by release 0.1.0 open and keep working', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  afterEach(() => sandbox.remove());

  it('a project built by commands (reject, resubmit, accept): its status, history and next mutation', async () => {
    sandbox = withReleased('story');
    const status = await sandbox.ok(['status']);
    expect(status.tasks.ready.map((task: { id: string }) => task.id)).to.deep.equal(['T-2']);
    const history = await sandbox.ok(['history', 'T-1']);
    expect(history.entries.map((entry: { op: string }) => entry.op)).to.deep.equal(['add-task', 'take', 'submit', 'reject', 'take', 'submit', 'accept']);
    const shown = await sandbox.ok(['show', 'T-1']);
    expect(shown.node.status).to.equal('done');

    await sandbox.ok(['take', 'T-2', '--as', 'carol']);
    const after = await sandbox.ok(['status']);
    expect(after.tasks.in_progress.map((task: { id: string }) => task.id)).to.deep.equal(['T-2']);
    expect((await sandbox.ok(['history', 'T-1'])).entries).to.have.length(7);
  });

  it('a project whose checkpoint holds the graph, with a ledger after it', async () => {
    sandbox = withReleased('generated');
    const status = await sandbox.ok(['status']);
    expect(status.summary).to.deep.equal({ ready: 3, in_progress: 2, blocked: 9, backlog: 0, submitted: 4, open_gates: 0, active_knowledge: 1 });
    const shown = await sandbox.ok(['show', 'T-bench-take-0000']);
    expect(shown.node.status).to.equal('in_progress');
    await sandbox.ok(['accept', 'T-bench-submit-0000', '--as', 'b']);
    expect((await sandbox.ok(['status'])).summary.submitted).to.equal(3);
  });

  it('its checkpoint is written again in the current layout (the id list and slot table on lines of their own), and reads the same', async () => {
    sandbox = withReleased('generated');
    const checkpoint = path.join(sandbox.home, '.taskdag', 'projects', 'bench-old', 'tasks.json');
    const lines = () => readFileSync(checkpoint, 'utf8').split('\n');
    expect(lines()[2]).to.match(/^"heads":/);
    const before = { status: await sandbox.ok(['status']), shown: await sandbox.ok(['show', 'T-bench-take-0000']) };
    // One transaction of 40 KB passes the smallest checkpoint threshold (32 KiB): its commit writes the checkpoint.
    const add = { op: 'add-task', args: { initiative: 'init-0', title: 'x', body: 'y'.repeat(1_000), acceptance: 'z', blocked_by: [] } };
    await sandbox.ok(['batch', '--stdin', '--as', 'b'], { input: JSON.stringify({ operations: Array.from({ length: 40 }, () => add) }) });
    expect(lines()[2]).to.match(/^"ids":\[/);
    expect(lines()[3]).to.match(/^"slots":\["[0-9a-f]{216}"/);
    expect(await sandbox.ok(['show', 'T-bench-take-0000'])).to.deep.equal(before.shown);
    const after = await sandbox.ok(['status']);
    expect(after.summary).to.deep.equal({ ...before.status.summary, ready: before.status.summary.ready + 40 });
  });
});
