import { expect } from 'chai';
import { GraphDraft } from '../../domain/draft.js';
import { emptyGraph } from '../../domain/model.js';
import { NOW, addGate, addTask, newDraft, thrownBy } from '../support/graphs.js';

describe('GraphDraft', () => {
  it('has no changes until an operation records a log entry', () => {
    const sut = newDraft();
    expect(sut.changes()).to.equal(null);
  });

  it('collects written nodes, edge changes in order, initiatives and log entries into one ChangeSet', () => {
    const sut = newDraft('alice');
    addGate(sut, 'G1');
    addTask(sut, 'T1', {}, { blocked_by: ['G1'] });
    sut.removeEdge({ from: 'G1', to: 'T1', type: 'BLOCKS' });
    sut.putInitiative('billing', { desc: '', created_at: NOW });
    const changes = sut.changes()!;
    expect(changes.revision).to.equal(2);
    expect(Object.keys(changes.nodes)).to.deep.equal(['G1', 'T1']);
    expect(changes.edges).to.deep.equal([
      { op: 'add', edge: { from: 'G1', to: 'T1', type: 'BLOCKS' } },
      { op: 'remove', edge: { from: 'G1', to: 'T1', type: 'BLOCKS' } },
    ]);
    expect(changes.initiatives).to.have.keys('billing');
    expect(changes.log.map((entry) => [entry.revision, entry.op, entry.node])).to.deep.equal([[1, 'fixture', 'G1'], [2, 'fixture', 'T1']]);
  });

  it('removes an edge that is absent without recording anything (idempotent removal)', () => {
    const sut = newDraft();
    addTask(sut, 'T1');
    addTask(sut, 'T2');
    const before = sut.changes()!.edges.length;
    expect(sut.removeEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' })).to.equal(false);
    expect(sut.changes()!.edges).to.have.length(before);
  });

  it('keeps its index current as edges come and go', () => {
    const sut = newDraft();
    addTask(sut, 'T1');
    addTask(sut, 'T2');
    expect(sut.index.into('T2', 'BLOCKS')).to.deep.equal([]);
    sut.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(sut.index.into('T2', 'BLOCKS')).to.have.length(1);
    sut.removeEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(sut.index.into('T2', 'BLOCKS')).to.deep.equal([]);
  });

  it('finds nodes by own id only, and reports a missing one as NODE_NOT_FOUND', () => {
    const sut = new GraphDraft(emptyGraph(), NOW, 'alice');
    expect(sut.node('constructor')).to.equal(undefined);
    const error = thrownBy(() => sut.requireNode('T-nope'));
    expect(error.code).to.equal('NODE_NOT_FOUND');
    expect(error.details).to.deep.equal({ id: 'T-nope' });
  });

  it('stamps each log entry with the next revision, the time and the agent', () => {
    const sut = new GraphDraft(emptyGraph(), NOW, 'carol');
    expect(sut.record({ op: 'x', node: null })).to.deep.equal({ revision: 1, at: NOW, by: 'carol', op: 'x', node: null });
    expect(sut.record({ op: 'y', node: 'T1', note: 'n' })).to.deep.equal({ revision: 2, at: NOW, by: 'carol', op: 'y', node: 'T1', note: 'n' });
  });
});
