import { expect } from 'chai';
import { applyChangeSet, mergeChangeSets } from '../../domain/change-set.js';
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

  it('rollback puts the graph back exactly as it was, whatever the draft did, and forgets its changes', () => {
    const base = newDraft('alice');
    addGate(base, 'G1');
    addTask(base, 'T1', {}, { blocked_by: ['G1'] });
    const before = structuredClone(base.graph);
    const sut = new GraphDraft(base.graph, NOW, 'bob');
    addTask(sut, 'T2', {}, { blocked_by: ['T1'] });
    sut.putNode({ ...(sut.requireNode('T1') as any), title: 'changed' });
    sut.removeEdge({ from: 'G1', to: 'T1', type: 'BLOCKS' });
    sut.putInitiative('core', { desc: 'rewritten', created_at: NOW });
    sut.putInitiative('new', { desc: '', created_at: NOW });
    sut.appendNote(sut.requireNode('G1'), { at: NOW, by: 'bob', text: 'gone' });
    sut.record({ op: 'add-note', node: 'G1' });
    sut.rollback();
    expect(sut.graph).to.deep.equal(before);
    expect(sut.changes()).to.equal(null);
    addTask(sut, 'T3', {}, { blocked_by: ['T1'] });
    expect(sut.changes()!.revision).to.equal(before.revision + 1);
  });

  it('merged change sets replay to the same graph as each replayed in turn', () => {
    const draft = newDraft('alice');
    const sets = [];
    for (const step of [
      (sut: GraphDraft) => addGate(sut, 'G1'),
      (sut: GraphDraft) => addTask(sut, 'T1', {}, { blocked_by: ['G1'] }),
      (sut: GraphDraft) => sut.removeEdge({ from: 'G1', to: 'T1', type: 'BLOCKS' }) && sut.record({ op: 'remove-edge', node: 'T1' }),
      (sut: GraphDraft) => sut.appendNote(sut.requireNode('T1'), { at: NOW, by: 'alice', text: 'one' }) && sut.record({ op: 'add-note', node: 'T1' }),
      (sut: GraphDraft) => sut.putNode({ ...(sut.requireNode('T1') as any), title: 'again' }) ?? sut.record({ op: 'update', node: 'T1' }),
      (sut: GraphDraft) => sut.appendNote(sut.requireNode('T1'), { at: NOW, by: 'alice', text: 'two' }) && sut.record({ op: 'add-note', node: 'T1' }),
      (sut: GraphDraft) => sut.appendNote(sut.requireNode('G1'), { at: NOW, by: 'alice', text: 'three' }) && sut.record({ op: 'add-note', node: 'G1' }),
    ]) {
      const sut = new GraphDraft(draft.graph, NOW, 'alice');
      step(sut);
      sets.push(sut.changes()!);
    }
    const oneByOne = newDraft('alice').graph;
    for (const set of sets) applyChangeSet(oneByOne, set);
    const merged = newDraft('alice').graph;
    applyChangeSet(merged, mergeChangeSets(sets)!);
    expect(merged).to.deep.equal(oneByOne);
    expect(merged).to.deep.equal(draft.graph);
    expect(mergeChangeSets([])).to.equal(null);
  });
});
