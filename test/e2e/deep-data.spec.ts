import { expect } from 'chai';
import { MAX_META_DEPTH } from '../../domain/meta.js';
import { Sandbox } from '../support/cli.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';

/** Data a user can make deep is walked without recursion or refused with a bound (issue 9 item 4). */
describe('deep data (supersede chains, nested --meta)', () => {
  let sandbox: Sandbox;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
  });
  after(() => sandbox.remove());

  const nested = (depth: number) => {
    let meta = '{}';
    for (let level = 1; level < depth; level++) meta = `{"a":${meta}}`;
    return meta;
  };
  const task = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', ''];

  it('status, context and resolve work on a chain of 3,000 superseded gates', async () => {
    const length = 3000;
    await sandbox.ok(['add-gate', 'G-0', '--initiative', 'core', '--title', 'g', '--body', 'b', '--purpose', 'p', '--as', 'alice']);
    await sandbox.ok(['add-task', 'T-deep', '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', 'G-0', '--as', 'alice']);
    const operations = Array.from({ length }, (_, at) => ({
      op: 'add-gate',
      args: { id: `G-${at + 1}`, initiative: 'core', title: 'g', body: 'b', purpose: 'p', supersedes: `G-${at}` },
    }));
    const built = await sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: JSON.stringify({ operations }) });
    expect(built.code, built.stdout.slice(0, 300)).to.equal(0);
    const status = await sandbox.ok(['status']);
    expect(JSON.stringify(status)).to.contain('T-deep');
    const context = await sandbox.ok(['context', 'T-deep']);
    expect(context).to.be.an('object');
    const resolved = await sandbox.ok(['resolve', `G-${length}`, '--choice', 'x', '--rationale', 'y', '--as', 'alice']);
    expect(resolved.newly_ready).to.include('T-deep');
  });

  it(`accepts --meta nested ${MAX_META_DEPTH} deep`, async () => {
    const created = await sandbox.ok([...task('T-meta-ok'), '--meta', nested(MAX_META_DEPTH), '--as', 'alice']);
    expect(JSON.stringify(created.node.meta)).to.equal(nested(MAX_META_DEPTH));
  });

  it(`refuses --meta nested deeper than ${MAX_META_DEPTH} (5,000 deep included) with INVALID_ARGUMENT, writing nothing`, async () => {
    await sandbox.ok([...task('T-meta'), '--as', 'alice']);
    const details = { field: 'meta', max_depth: MAX_META_DEPTH };
    await expectFailuresLeaveStateUntouched(sandbox, [
      { args: [...task('T-meta-2'), '--meta', nested(MAX_META_DEPTH + 1), '--as', 'alice'], code: 'INVALID_ARGUMENT', details },
      { args: [...task('T-meta-3'), '--meta', nested(5000), '--as', 'alice'], code: 'INVALID_ARGUMENT', details },
      { args: ['update', 'T-meta', '--meta', nested(5000), '--as', 'alice'], code: 'INVALID_ARGUMENT', details },
    ]);
  });
});
