import { nodeIds, plainGraph } from '../../domain/node-map.js';
import { expect } from 'chai';
import { emptyGraph } from '../../domain/model.js';
import { projectState } from '../../domain/projection.js';
import { addTask, newDraft } from '../support/graphs.js';

describe('projection (spec 2.1 state schema 1)', () => {
  it('an empty state has exactly the seven collections with their initial values', () => {
    expect(projectState({ ...emptyGraph(), log: [] })).to.deep.equal({
      version: 1,
      fence_generation: 1,
      revision: 0,
      initiatives: {},
      nodes: {},
      edges: [],
      log: [],
    });
  });

  it('orders fields, nodes by id and initiatives by name, whatever order they were stored in', () => {
    const draft = newDraft();
    addTask(draft, 'T2');
    addTask(draft, 'T1');
    draft.putInitiative('alpha', { desc: '', created_at: draft.now });
    const { log, ...rest } = { log: [], ...plainGraph(draft.graph) };
    const sut = projectState({ log, ...rest, version: 1 });
    expect(Object.keys(sut)).to.deep.equal(['version', 'fence_generation', 'revision', 'initiatives', 'nodes', 'edges', 'log']);
    expect(nodeIds(sut)).to.deep.equal(['T1', 'T2']);
    expect(Object.keys(sut.initiatives)).to.deep.equal(['alpha', 'core']);
  });
});
