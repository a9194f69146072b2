import { expect } from 'chai';
import { GraphIndex } from '../../domain/graph-index.js';
import type { Edge, EdgeType } from '../../domain/model.js';
import { addGate, addTask, newDraft } from '../support/graphs.js';

const TYPES: EdgeType[] = ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'];

describe('graph index kept current edge by edge', () => {
  it('answers as an index built afresh after every kind of edge change', () => {
    const draft = newDraft();
    for (let at = 0; at < 30; at++) addTask(draft, `T${at}`);
    draft.index.into('T0', 'BLOCKS'); // build the maps, so that later changes go through added/removed
    for (let at = 1; at < 30; at++) draft.addEdge({ from: `T${at - 1}`, to: `T${at}`, type: 'BLOCKS' });
    for (let at = 2; at < 30; at += 3) draft.removeEdge({ from: `T${at - 1}`, to: `T${at}`, type: 'BLOCKS' });
    addGate(draft, 'G1', {}, { blocked_by: [] });
    addGate(draft, 'G2', {}, { supersedes: 'G1' });
    const fresh = new GraphIndex(draft.graph);
    for (const id of Object.keys(draft.graph.nodes)) {
      for (const type of TYPES) {
        expect(draft.index.into(id, type), `into ${id} ${type}`).to.deep.equal(fresh.into(id, type));
        expect(draft.index.outOf(id, type), `outOf ${id} ${type}`).to.deep.equal(fresh.outOf(id, type));
      }
    }
  });

  it('never changes a list a caller is iterating', () => {
    const draft = newDraft();
    for (const id of ['A', 'B', 'C', 'D']) addTask(draft, id);
    for (const from of ['A', 'B', 'C']) draft.addEdge({ from, to: 'D', type: 'BLOCKS' });
    const seen: string[] = [];
    for (const edge of draft.index.into('D', 'BLOCKS') as Edge[]) {
      seen.push(edge.from);
      draft.removeEdge(edge);
    }
    expect(seen).to.deep.equal(['A', 'B', 'C']);
    expect(draft.index.into('D', 'BLOCKS')).to.deep.equal([]);
  });
});

describe('graph index read from saved endpoints', () => {
  it('reads each node asked about once, applies the edge changes made since, and answers as an index of the whole list', () => {
    const draft = newDraft();
    for (let at = 0; at < 12; at++) addTask(draft, `T${at}`);
    for (let at = 1; at < 12; at++) draft.addEdge({ from: `T${at - 1}`, to: `T${at}`, type: 'BLOCKS' });
    const graph = draft.graph;
    const whole = new GraphIndex(graph);
    const asked: string[] = [];
    const saved = {
      of: (id: string) => {
        asked.push(id);
        return { into: TYPES.flatMap((type) => whole.into(id, type).map((edge) => ({ ...edge }))), outOf: TYPES.flatMap((type) => whole.outOf(id, type).map((edge) => ({ ...edge }))) };
      },
    };
    const sut = new GraphIndex(graph, saved);
    expect(sut.into('T5', 'BLOCKS').map((edge) => edge.from)).to.deep.equal(['T4']);
    // Changes after the save: one edge removed (a copy of the saved one is what the graph holds), one added.
    const edges = graph.edges as Edge[];
    const removed = edges.splice(edges.findIndex((edge) => edge.from === 'T4' && edge.to === 'T5'), 1)[0]!;
    sut.removed(removed);
    const added: Edge = { from: 'T0', to: 'T5', type: 'BLOCKS' };
    edges.push(added);
    sut.added(added);
    const fresh = new GraphIndex(graph);
    for (let at = 0; at < 12; at++) {
      for (const type of TYPES) {
        expect(sut.into(`T${at}`, type), `into T${at} ${type}`).to.deep.equal(fresh.into(`T${at}`, type));
        expect(sut.outOf(`T${at}`, type), `outOf T${at} ${type}`).to.deep.equal(fresh.outOf(`T${at}`, type));
      }
    }
    expect(sut.wholeGroupings).to.equal(0);
    expect(new Set(asked).size).to.equal(asked.length);
  });

  it('gives a node read without edges no lists of its own until an edge of its changes, and that edge to it alone', () => {
    const draft = newDraft();
    // 100 nodes read of 2,000: under the share past which the whole list is grouped instead.
    for (let at = 0; at < 2000; at++) addTask(draft, `T${at}`);
    const graph = draft.graph;
    const sut = new GraphIndex(graph, { of: () => ({ into: [], outOf: [] }) });
    for (let at = 0; at < 100; at++) expect(sut.into(`T${at}`, 'BLOCKS')).to.deep.equal([]);
    expect(sut.ownLists, 'nodes with lists of their own').to.equal(0);
    const added: Edge = { from: 'T1', to: 'T2', type: 'BLOCKS' };
    (graph.edges as Edge[]).push(added);
    sut.added(added);
    expect(sut.ownLists).to.equal(2);
    expect(sut.outOf('T1', 'BLOCKS')).to.deep.equal([added]);
    expect(sut.into('T2', 'BLOCKS')).to.deep.equal([added]);
    for (const id of ['T0', 'T3', 'T99']) expect([...sut.into(id, 'BLOCKS'), ...sut.outOf(id, 'BLOCKS')], id).to.deep.equal([]);
    // A node first read after the change gets the change applied on lists of its own.
    const later = new GraphIndex(graph, { of: () => ({ into: [], outOf: [] }) });
    later.added(added);
    expect(later.into('T2', 'BLOCKS')).to.deep.equal([added]);
    expect(later.into('T5', 'BLOCKS')).to.deep.equal([]);
    expect(later.ownLists).to.equal(1);
  });

  it('groups the whole edge list once a walk has read a sixteenth of the nodes one by one (at least 64), and answers the same', () => {
    const chain = (length: number) => {
      const draft = newDraft();
      for (let at = 0; at < length; at++) addTask(draft, `T${at}`);
      for (let at = 1; at < length; at++) draft.addEdge({ from: `T${at - 1}`, to: `T${at}`, type: 'BLOCKS' });
      const whole = new GraphIndex(draft.graph);
      const asked: string[] = [];
      const saved = { of: (id: string) => (asked.push(id), { into: whole.into(id, 'BLOCKS').map((edge) => ({ ...edge })), outOf: whole.outOf(id, 'BLOCKS').map((edge) => ({ ...edge })) }) };
      return { graph: draft.graph, sut: new GraphIndex(draft.graph, saved), asked, whole };
    };
    // A walk down a chain of 2,000 (next's ranking over a young project): 125 read, then the list.
    const long = chain(2000);
    for (let at = 0; at < 2000; at++) expect(long.sut.outOf(`T${at}`, 'BLOCKS'), `T${at}`).to.deep.equal(long.whole.outOf(`T${at}`, 'BLOCKS'));
    expect(long.asked).to.have.length(125);
    expect(long.sut.wholeGroupings).to.equal(1);
    // Edge changes after the switch go to the grouped lists.
    const added: Edge = { from: 'T5', to: 'T1999', type: 'BLOCKS' };
    (long.graph.edges as Edge[]).push(added);
    long.sut.added(added);
    expect(long.sut.into('T1999', 'BLOCKS').map((edge) => edge.from)).to.deep.equal(['T1998', 'T5']);
    // A smaller graph is read node by node up to 64.
    const short = chain(200);
    for (let at = 0; at < 100; at++) short.sut.outOf(`T${at}`, 'BLOCKS');
    expect(short.asked).to.have.length(64);
    // A point read (a few nodes) reads only theirs.
    const point = chain(2000);
    for (const id of ['T7', 'T8', 'T1500']) point.sut.into(id, 'BLOCKS');
    expect(point.asked).to.deep.equal(['T7', 'T8', 'T1500']);
    expect(point.sut.wholeGroupings).to.equal(0);
  });

  it('groups the whole edge list instead once a saved entry proves damaged', () => {
    const draft = newDraft();
    for (const id of ['A', 'B']) addTask(draft, id);
    draft.addEdge({ from: 'A', to: 'B', type: 'BLOCKS' });
    const sut = new GraphIndex(draft.graph, { of: () => null });
    expect(sut.into('B', 'BLOCKS').map((edge) => edge.from)).to.deep.equal(['A']);
    expect(sut.wholeGroupings).to.equal(1);
  });
});
