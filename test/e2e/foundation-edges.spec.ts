import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';

const AS = ['--as', 'alice'];

describe('add-edge and remove-edge (spec 2.3, 4.2)', () => {
  let sandbox: Sandbox;
  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', ...AS]);
    for (const id of ['T1', 'T2', 'T3']) {
      await sandbox.ok(['add-task', id, '--initiative', 'core', '--title', id, '--body', '', '--acceptance', 'ok', '--blocked-by', '', ...AS]);
    }
    await sandbox.ok(['add-gate', 'G1', '--initiative', 'core', '--title', 'G1', '--body', '', '--purpose', 'p', ...AS]);
    await sandbox.ok(['add-knowledge', 'K1', '--initiative', 'core', '--title', 'K1', '--body', '', '--scope-tags', 't', ...AS]);
  });
  after(() => sandbox.remove());

  it('add-edge returns { edge } and stores it', async () => {
    expect(await sandbox.ok(['add-edge', 'T1', 'T2', '--type', 'BLOCKS', ...AS])).to.deep.equal({ edge: { from: 'T1', to: 'T2', type: 'BLOCKS' } });
    expect(await sandbox.ok(['add-edge', 'K1', 'G1', '--type', 'DERIVED_FROM', ...AS])).to.deep.equal({
      edge: { from: 'K1', to: 'G1', type: 'DERIVED_FROM' },
    });
    const state = await sandbox.ok(['state']);
    expect(state.edges).to.deep.include({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(state.log.at(-1)).to.deep.include({ op: 'add-edge', by: 'alice', edge: { from: 'K1', to: 'G1', type: 'DERIVED_FROM' } });
  });

  it('add-edge refuses every invalid edge with its code and writes nothing', async () => {
    await sandbox.ok(['add-edge', 'T2', 'T3', '--type', 'BLOCKS', ...AS]);
    const edge = (from: string, to: string, type: string) => ['add-edge', from, to, '--type', type, ...AS];
    await expectFailuresLeaveStateUntouched(sandbox, [
      { args: edge('T1', 'T1', 'BLOCKS'), code: 'SELF_EDGE', details: { from: 'T1', to: 'T1', type: 'BLOCKS' } },
      { args: edge('T1', 'T-missing', 'BLOCKS'), code: 'INVALID_EDGE_TARGET', details: { missing: 'T-missing' } },
      { args: edge('T-missing', 'T1', 'DERIVED_FROM'), code: 'INVALID_EDGE_TARGET', details: { missing: 'T-missing' } },
      { args: edge('K1', 'T1', 'BLOCKS'), code: 'INVALID_EDGE_KIND', details: { from_type: 'knowledge', to_type: 'task' } },
      { args: edge('G1', 'T1', 'SUPERSEDES'), code: 'INVALID_EDGE_KIND', details: { from_type: 'gate', to_type: 'task' } },
      { args: edge('T2', 'T3', 'BLOCKS'), code: 'DUPLICATE_EDGE' },
      { args: edge('T3', 'T1', 'BLOCKS'), code: 'CYCLE_DETECTED', details: { cycle: ['T3', 'T1', 'T2', 'T3'] } },
      { args: edge('T1', 'T3', 'blocks'), code: 'INVALID_EDGE_TYPE', details: { allowed: ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'] } },
      { args: ['add-edge', 'T1', 'T3', ...AS], code: 'MISSING_FIELD', details: { field: 'type' } },
      { args: ['add-edge', 'T1', '--type', 'BLOCKS', ...AS], code: 'MISSING_FIELD', details: { field: 'to' } },
    ]);
  });

  it('remove-edge removes exactly the one edge, and again is a no-op that writes nothing', async () => {
    await sandbox.ok(['add-edge', 'T1', 'T3', '--type', 'DERIVED_FROM', ...AS]);
    await sandbox.ok(['add-edge', 'T1', 'T3', '--type', 'BLOCKS', ...AS]);
    const removed = await sandbox.ok(['remove-edge', 'T1', 'T3', '--type', 'DERIVED_FROM', ...AS]);
    expect(removed).to.deep.equal({ removed: true, edge: { from: 'T1', to: 'T3', type: 'DERIVED_FROM' } });
    const before = await sandbox.run(['state']);
    expect(before.json.edges).to.deep.include({ from: 'T1', to: 'T3', type: 'BLOCKS' });
    expect(before.json.edges).not.to.deep.include({ from: 'T1', to: 'T3', type: 'DERIVED_FROM' });

    const again = await sandbox.ok(['remove-edge', 'T1', 'T3', '--type', 'DERIVED_FROM', ...AS]);
    expect(again).to.deep.equal({ removed: false, edge: { from: 'T1', to: 'T3', type: 'DERIVED_FROM' } });
    expect((await sandbox.run(['state'])).stdout).to.equal(before.stdout);
  });

  it('remove-edge refuses an unknown type or missing arguments and writes nothing', async () => {
    await expectFailuresLeaveStateUntouched(sandbox, [
      { args: ['remove-edge', 'T1', 'T2', '--type', 'NOPE', ...AS], code: 'INVALID_EDGE_TYPE' },
      { args: ['remove-edge', 'T1', 'T2', ...AS], code: 'MISSING_FIELD', details: { field: 'type' } },
      { args: ['remove-edge', '--type', 'BLOCKS', ...AS], code: 'MISSING_FIELD', details: { field: 'from' } },
    ]);
  });
});
