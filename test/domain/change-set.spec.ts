import { expect } from 'chai';
import { applyChangeSet } from '../../domain/change-set.js';
import { GraphDraft } from '../../domain/draft.js';
import { NOW, addGate, addKnowledge, addTask, newDraft } from '../support/graphs.js';

describe('change-set (ledger replay)', () => {
  it('replaying what a transaction changed onto a copy of its start yields the same graph', () => {
    const sut = newDraft('alice');
    addGate(sut, 'G-old');
    addTask(sut, 'T1', {}, { blocked_by: ['G-old'] });
    const start = structuredClone(sut.graph);
    const transaction = new GraphDraft(structuredClone(start), NOW, 'bob');
    addGate(transaction, 'G-new', {}, { supersedes: 'G-old' });
    addKnowledge(transaction, 'K1', {}, { derived_from: ['T1'] });
    transaction.removeEdge({ from: 'T1', to: 'K1', type: 'DERIVED_FROM' });
    transaction.putInitiative('billing', { desc: 'b', created_at: transaction.now });

    const replayed = structuredClone(start);
    applyChangeSet(replayed, transaction.changes()!);
    expect(replayed).to.deep.equal(transaction.graph);
  });

  it('removes one exact edge per remove change, even among look-alikes', () => {
    const draft = newDraft();
    addTask(draft, 'T1');
    addTask(draft, 'T2');
    draft.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    draft.addEdge({ from: 'T1', to: 'T2', type: 'DERIVED_FROM' });
    const graph = structuredClone(draft.graph);
    applyChangeSet(graph, { revision: 9, log: [], nodes: {}, initiatives: {}, edges: [{ op: 'remove', edge: { from: 'T1', to: 'T2', type: 'DERIVED_FROM' } }] });
    expect(graph.edges).to.deep.equal([{ from: 'T1', to: 'T2', type: 'BLOCKS' }]);
    expect(graph.revision).to.equal(9);
  });
});

