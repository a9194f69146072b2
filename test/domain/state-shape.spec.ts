import { expect } from 'chai';
import { graphShapeProblem, stateProblem } from '../../domain/state-shape.js';
import { sampleState } from '../support/states.js';

describe('state shape (what a state must be to load and work)', () => {
  it('accepts a state made by the rules', () => {
    expect(stateProblem(sampleState())).to.equal(null);
    expect(graphShapeProblem(sampleState())).to.equal(null);
  });

  const breakages: [string, (state: any) => void, string][] = [
    ['another schema version', (state) => (state.version = 0), 'unsupported schema version 0'],
    ['a missing collection', (state) => delete state.edges, 'edges is not an array'],
    ['a missing log', (state) => delete state.log, 'log is not an array'],
    ['a field outside the seven collections', (state) => (state.ledger = { file: 'ledger.1.jsonl', bytes: 0 }), 'ledger is not a field of a schema-1 state'],
    ['a fence generation of 0', (state) => (state.fence_generation = 0), 'fence_generation must be a safe integer of at least 1'],
    ['a malformed initiative', (state) => (state.initiatives.core = { desc: 1 }), 'initiative core is malformed'],
    ['a node under another id', (state) => (state.nodes['T-1'].id = 'T-2'), 'node T-1 is malformed'],
    ['a node of an unknown kind', (state) => (state.nodes['T-1'].kind = 'epic'), 'node T-1 has an unknown kind'],
    ['a task stored as ready', (state) => (state.nodes['T-1'].status = 'ready'), 'node T-1 has status "ready"'],
    ['a gate stored as active', (state) => (state.nodes['G-1'].status = 'active'), 'node G-1 has status "active"'],
    ['a node without a title', (state) => delete state.nodes['T-1'].title, 'node T-1 has no title'],
    ['a node with tags that are not text', (state) => (state.nodes['T-1'].tags = [1]), 'node T-1 has tags or refs'],
    ['a node with a revision of 0', (state) => (state.nodes['T-1'].revision = 0), 'node T-1 has a revision below 1'],
    ['a malformed claim', (state) => (state.nodes['T-1'].claim = { by: 'a' }), 'node T-1 has a malformed claim'],
    ['a malformed rejection', (state) => (state.nodes['T-1'].rejection = { reason: 'why' }), 'node T-1 has a malformed rejection'],
    ['a malformed resolution', (state) => (state.nodes['G-1'].resolution = 'yes'), 'node G-1 has a malformed resolution'],
    ['a knowledge item without a scope', (state) => delete state.nodes['K-1'].scope, 'node K-1 has a malformed scope'],
    ['an edge to a missing node', (state) => (state.edges[0].to = 'T-404'), 'has a missing endpoint'],
    ['a self-edge', (state) => (state.edges[0].from = 'T-1'), 'is a self-edge'],
    ['a duplicated edge', (state) => state.edges.push({ ...state.edges[0] }), 'is duplicated'],
    ['a BLOCKS edge from knowledge', (state) => (state.edges[0].from = 'K-1'), 'does not join two resolvable nodes'],
    ['an edge of an unknown type', (state) => (state.edges[0].type = 'PARENT'), 'is malformed'],
    ['a log entry without a timestamp', (state) => delete state.log[1].at, 'log entry 1 has no timestamp'],
    ['a log entry without an op', (state) => (state.log[1].op = ''), 'log entry 1 has no op'],
    ['log revisions out of order', (state) => (state.log[1].revision = 1), 'log entry 1 has a revision out of order'],
    ['a log past the state revision', (state) => (state.revision = 2), 'the log goes past the state revision 2'],
    ['a revision past the safe integers', (state) => (state.revision = 2 ** 53 + 1), 'revision must be a safe integer'],
    ['a revision with no room to grow', (state) => (state.revision = Number.MAX_SAFE_INTEGER), 'revision must be a safe integer'],
    ['a node id that is a path', (state) => {
      state.nodes['../x'] = { ...state.nodes['T-1'], id: '../x' };
    }, 'node id "../x" is not a valid node id'],
    ['a node field no node type has', (state) => (state.nodes['T-1'].owner = 'eve'), 'node T-1 has a field "owner" that a task does not have'],
    ['a gate field on a task', (state) => (state.nodes['T-1'].resolution = null), 'node T-1 has a field "resolution"'],
    ['a BLOCKS cycle', (state) => state.edges.push({ from: 'T-1', to: 'G-1', type: 'BLOCKS' }), 'the BLOCKS edges form a cycle'],
  ];
  for (const [what, breakIt, problem] of breakages) {
    it(`names ${what}`, () => {
      const state: any = sampleState();
      breakIt(state);
      expect(stateProblem(state)).to.contain(problem);
    });
  }
});
