import { expect } from 'chai';
import type { DomainError } from '../../../domain/errors.js';
import { operationsOverSample } from '../../support/services.js';
import { rejectionOf } from '../../support/failures.js';
import { sampleState } from '../../support/states.js';

const failure = (work: () => Promise<unknown>) => rejectionOf<DomainError>(work);

describe('init --force and restore (application, in-memory store)', () => {
  const setup = operationsOverSample;

  it('init --force needs an agent, then snapshots the state it displaces before replacing it', async () => {
    const { sut, store } = await setup();
    expect((await failure(() => sut.run('init', { force: true }, null))).code).to.equal('MISSING_AGENT');
    const result = (await sut.run('init', { force: true }, 'alice')) as { snapshot: { reason: string } };
    expect(result.snapshot.reason).to.equal('force-init');
    expect(store.snapshots.taken[0]!.displaced).to.deep.equal({ kind: 'valid', state: sampleState(), plugins: {} });
    const current = await store.inspect();
    expect(current.kind === 'valid' && current.state.nodes).to.deep.equal({});
  });

  it('restore checks the snapshot before it takes the pre-restore snapshot', async () => {
    const { sut, store } = await setup();
    expect((await failure(() => sut.run('restore', { snapshot_id: 'missing' }, 'alice'))).code).to.equal('STORAGE_ERROR');
    expect(store.snapshots.taken).to.deep.equal([]);
  });

  it('restore brings a snapshot back with a restore event and keeps the displaced state', async () => {
    const { sut, store } = await setup();
    const { snapshot } = (await sut.run('init', { force: true }, 'alice')) as { snapshot: { id: string } };
    expect(await sut.run('restore', { snapshot_id: snapshot.id }, 'bob')).to.deep.equal({ snapshot });
    const current = await store.inspect();
    if (current.kind !== 'valid') throw new Error('no state');
    expect(current.state.nodes).to.deep.equal(sampleState().nodes);
    expect(current.state.log.at(-1)).to.include({ op: 'restore', by: 'bob', snapshot: snapshot.id });
    expect(store.snapshots.taken.map((taken) => taken.metadata.reason)).to.deep.equal(['force-init', 'pre-restore']);
  });
});
