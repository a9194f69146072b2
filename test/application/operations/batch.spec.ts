import { expect } from 'chai';
import sinon from 'sinon';
import type { DomainError } from '../../../domain/errors.js';
import { plainGraph } from '../../../domain/node-map.js';
import { projectState } from '../../../domain/project-state.js';
import type { Graph } from '../../../domain/model.js';
import { operationsOverSample } from '../../support/services.js';
import { rejectionOf } from '../../support/failures.js';

const task = (id: string, blockedBy: string[] = []) => ({
  op: 'add-task',
  args: { id, initiative: 'core', title: id, body: '', acceptance: 'a', blocked_by: blockedBy },
});

const failure = (work: () => Promise<unknown>) => rejectionOf<DomainError>(work);

describe('batch (application, in-memory store)', () => {
  const setup = operationsOverSample;

  it('applies every item on one draft and commits them as one change, each item as its agent', async () => {
    const { sut, store } = await setup();
    const result = (await sut.run('batch', { operations: [task('T-2'), task('T-3', ['T-2']), { ...task('T-4'), as: 'bob' }] }, 'alice')) as { revision: number };
    const current = await store.inspect();
    if (current.kind !== 'valid') throw new Error('no state');
    expect(result.revision).to.equal(current.state.revision);
    expect(current.state.log.slice(-3).map((entry) => [entry.node, entry.by])).to.deep.equal([
      ['T-2', 'alice'],
      ['T-3', 'alice'],
      ['T-4', 'bob'],
    ]);
    expect(current.state.edges).to.deep.include({ from: 'T-2', to: 'T-3', type: 'BLOCKS' });
  });

  it('changes nothing when an item fails, and names it with its own error', async () => {
    const { sut, store } = await setup();
    const before = await store.inspect();
    const error = await failure(() => sut.run('batch', { operations: [task('T-2'), task('T-1')] }, 'alice'));
    expect(error.code).to.equal('BATCH_OPERATION_FAILED');
    expect(error.details).to.deep.include({ index: 1, op: 'add-task' });
    expect((error.details.error as { code: string }).code).to.equal('ID_CONFLICT');
    expect((await store.inspect())).to.deep.equal(before);
  });

  it("has the store rank the ready tasks before the lock for next, alone or as an item, and derive nothing for other items", async () => {
    const { sut, store } = await setup();
    const transact = sinon.spy(store, 'transact');
    await sut.run('next', {}, 'alice');
    await sut.run('batch', { operations: [task('T-2'), { op: 'next', args: {} }] }, 'bob');
    await sut.run('batch', { operations: [task('T-3')] }, 'alice');
    const current = await store.inspect();
    if (current.kind !== 'valid') throw new Error('no state');
    // What each call's prepare derives on the committed state, as the file store runs it before taking the lock.
    const derived = transact.getCalls().map((call) => {
      const prepare = (call.args as unknown[])[2] as ((graph: Graph) => void) | undefined;
      const graph = projectState(structuredClone(plainGraph(current.state)));
      prepare?.(graph);
      return graph.indexes.ranking.derivations > 0;
    });
    expect(derived).to.deep.equal([true, true, false]);
  });

  it('refuses a stale expect_revision with STATE_REVISION_CONFLICT, and a batch without an agent', async () => {
    const { sut } = await setup();
    expect((await failure(() => sut.run('batch', { operations: [task('T-2')], expect_revision: 0 }, 'alice'))).code).to.equal('STATE_REVISION_CONFLICT');
    expect((await failure(() => sut.run('batch', { operations: [] }, null))).code).to.equal('MISSING_AGENT');
  });
});
