import { expect } from 'chai';
import { IMPORTED_INITIATIVE_DESC, importSchemaZero, isSchemaZero } from '../../domain/legacy-state.js';
import { stateProblem } from '../../domain/state-shape.js';
import { AT, sampleState } from '../support/states.js';

const schemaZero = () => ({
  nodes: {
    'T-1': { id: 'T-1', kind: 'resolvable', subkind: 'task', title: 'A', initiative: 'old', status: 'open', body: 'kept' },
    'K-1': { id: 'K-1', kind: 'knowledge', title: 'K', initiative: 'old', status: 'active' },
  },
  edges: [],
  log: [{ at: AT, op: 'add-task', node: 'T-1', by: 'ann' }, { at: AT, op: 'add-knowledge', node: 'K-1' }],
});

describe('schema 0 (docs/migrate.md)', () => {
  it('is told apart from schema 1 and from other JSON', () => {
    expect(isSchemaZero(schemaZero())).to.equal(true);
    expect(isSchemaZero({ ...schemaZero(), version: 0 })).to.equal(true);
    expect(isSchemaZero(sampleState())).to.equal(false);
    expect(isSchemaZero({ ...schemaZero(), ledger: { file: 'ledger.1.jsonl', bytes: 0 } })).to.equal(false);
    expect(isSchemaZero({ nodes: [], edges: [], log: [] })).to.equal(false);
    expect(isSchemaZero([])).to.equal(false);
  });

  it('imports into a valid schema-1 state: defaults filled, own fields kept, initiatives registered, log numbered', () => {
    const sut = importSchemaZero(schemaZero(), { at: AT, by: 'ops' });
    if (!('state' in sut)) throw new Error(sut.problem);
    expect(stateProblem(sut.state)).to.equal(null);
    expect(sut.state).to.include({ version: 1, fence_generation: 1, revision: 3 });
    expect(sut.state.nodes['T-1']).to.include({ body: 'kept', revision: 1, backlog: false, claim: null, created_by: 'ops' });
    expect(sut.state.nodes['K-1']).to.deep.include({ scope: { domains: [], initiatives: [], tags: [], node_ids: [] } });
    expect(sut.state.initiatives).to.deep.equal({ old: { desc: IMPORTED_INITIATIVE_DESC, created_at: AT } });
    expect(sut.state.log.map((entry) => [entry.revision, entry.op, entry.by])).to.deep.equal([
      [1, 'add-task', 'ann'],
      [2, 'add-knowledge', 'unknown'],
      [3, 'migrate', 'ops'],
    ]);
  });

  it('reports what keeps a schema-0 file from importing instead of producing a state that would not load', () => {
    const legacy: any = schemaZero();
    delete legacy.nodes['T-1'].title;
    expect(importSchemaZero(legacy, { at: AT, by: 'ops' })).to.deep.equal({ problem: 'node T-1 has no title' });
  });
});
