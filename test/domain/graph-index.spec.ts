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
