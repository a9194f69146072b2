import { expect } from 'chai';
import { allocateNodeId, assertValidNodeId } from '../../domain/ids.js';
import { addTask, newDraft, thrownBy } from '../support/graphs.js';

describe('ids (spec 1.1 generated ids)', () => {
  it('generates T-, G- and K- ids from the suffix source', () => {
    const graph = newDraft().graph;
    const suffix = () => '0a1b2c3d';
    expect(allocateNodeId(graph, 'task', undefined, suffix)).to.equal('T-0a1b2c3d');
    expect(allocateNodeId(graph, 'gate', undefined, suffix)).to.equal('G-0a1b2c3d');
    expect(allocateNodeId(graph, 'knowledge', undefined, suffix)).to.equal('K-0a1b2c3d');
  });

  it('draws another suffix when a generated id is taken', () => {
    const draft = newDraft();
    addTask(draft, 'T-00000000');
    const suffixes = ['00000000', '00000001'];
    expect(allocateNodeId(draft.graph, 'task', undefined, () => suffixes.shift()!)).to.equal('T-00000001');
  });

  it('gives up with ID_CONFLICT when every drawn suffix is taken', () => {
    const draft = newDraft();
    addTask(draft, 'T-00000000');
    expect(thrownBy(() => allocateNodeId(draft.graph, 'task', undefined, () => '00000000')).code).to.equal('ID_CONFLICT');
  });

  it('keeps a requested id, and refuses one that exists with ID_CONFLICT', () => {
    const draft = newDraft();
    expect(allocateNodeId(draft.graph, 'gate', 'G-schema', () => 'unused')).to.equal('G-schema');
    addTask(draft, 'T1');
    const error = thrownBy(() => allocateNodeId(draft.graph, 'gate', 'T1', () => 'unused'));
    expect(error.code).to.equal('ID_CONFLICT');
    expect(error.details).to.deep.equal({ id: 'T1' });
  });

  it('accepts letters, digits and . _ : - and refuses anything else with INVALID_ARGUMENT', () => {
    for (const id of ['T-1', 'a', 'G_x.y:z', 'x'.repeat(128)]) expect(() => assertValidNodeId(id), id).not.to.throw();
    for (const id of ['', '-T', 'T 1', 'T/1', '__proto__', 'x'.repeat(129), 'T,1']) {
      expect(thrownBy(() => assertValidNodeId(id)).code, JSON.stringify(id)).to.equal('INVALID_ARGUMENT');
    }
  });
});
