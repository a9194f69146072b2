import { expect } from 'chai';
import { applyChangeSet } from '../../domain/change-set.js';
import { GraphDraft } from '../../domain/draft.js';
import { addNote } from '../../domain/lifecycle.js';
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

  it('records an appended note as the note, not the node, and replays it to the same node', () => {
    const sut = newDraft('alice');
    addTask(sut, 'T1', { definition: 'x'.repeat(10_000) });
    const start = structuredClone(sut.graph);
    const transaction = new GraphDraft(structuredClone(start), NOW, 'alice');
    addNote(transaction, 'T1', 'first');
    addNote(transaction, 'T1', 'second');
    const changes = transaction.changes()!;
    expect(changes.nodes).to.deep.equal({});
    expect(changes.notes!.map((appended) => [appended.node, appended.note.text, appended.revision])).to.deep.equal([
      ['T1', 'first', 2],
      ['T1', 'second', 3],
    ]);
    expect(JSON.stringify(changes).length, 'the change set does not carry the 10 KB definition').to.be.below(2000);
    const replayed = structuredClone(start);
    applyChangeSet(replayed, changes);
    expect(replayed).to.deep.equal(transaction.graph);
  });

  it('records a node written whole in the same transaction once, its notes included', () => {
    const sut = newDraft('alice');
    addTask(sut, 'T1');
    const start = structuredClone(sut.graph);
    const transaction = new GraphDraft(structuredClone(start), NOW, 'alice');
    addNote(transaction, 'T1', 'before the rewrite');
    transaction.putNode({ ...transaction.requireNode('T1'), title: 'renamed' });
    addNote(transaction, 'T1', 'after the rewrite');
    const changes = transaction.changes()!;
    expect(changes.notes).to.deep.equal([]);
    expect(changes.nodes.T1!.notes.map((note) => note.text)).to.deep.equal(['before the rewrite', 'after the rewrite']);
    const replayed = structuredClone(start);
    applyChangeSet(replayed, changes);
    expect(replayed).to.deep.equal(transaction.graph);
  });

  it('removes one exact edge per remove change, even among look-alikes', () => {
    const draft = newDraft();
    addTask(draft, 'T1');
    addTask(draft, 'T2');
    draft.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    draft.addEdge({ from: 'T1', to: 'T2', type: 'DERIVED_FROM' });
    const graph = structuredClone(draft.graph);
    applyChangeSet(graph, { revision: 9, log: [], nodes: {}, notes: [], initiatives: {}, edges: [{ op: 'remove', edge: { from: 'T1', to: 'T2', type: 'DERIVED_FROM' } }] });
    expect(graph.edges).to.deep.equal([{ from: 'T1', to: 'T2', type: 'BLOCKS' }]);
    expect(graph.revision).to.equal(9);
  });
});

