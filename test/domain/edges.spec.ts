import { expect } from 'chai';
import { assertEdgeAllowed, isEdgeType, parseEdgeType, sameEdge } from '../../domain/edges.js';
import { GraphIndex } from '../../domain/graph-index.js';
import type { Edge } from '../../domain/model.js';
import { addGate, addKnowledge, addTask, newDraft, thrownBy } from '../support/graphs.js';

describe('edges (spec 2.3)', () => {
  function graphOfEveryKind() {
    const draft = newDraft();
    addTask(draft, 'T1');
    addTask(draft, 'T2');
    addGate(draft, 'G1');
    addGate(draft, 'G2');
    addKnowledge(draft, 'K1');
    addKnowledge(draft, 'K2');
    return draft;
  }

  function sut(draft: ReturnType<typeof newDraft>, edge: Edge) {
    assertEdgeAllowed(draft.graph, new GraphIndex(draft.graph), edge);
  }

  describe('allowed edges', () => {
    const allowed: Edge[] = [
      { from: 'T1', to: 'T2', type: 'BLOCKS' },
      { from: 'G1', to: 'T1', type: 'BLOCKS' },
      { from: 'T1', to: 'G1', type: 'BLOCKS' },
      { from: 'G1', to: 'G2', type: 'BLOCKS' },
      { from: 'G2', to: 'G1', type: 'SUPERSEDES' },
      { from: 'K2', to: 'K1', type: 'SUPERSEDES' },
      { from: 'T2', to: 'T1', type: 'SUPERSEDES' },
      { from: 'T1', to: 'K1', type: 'DERIVED_FROM' },
      { from: 'K1', to: 'G1', type: 'DERIVED_FROM' },
    ];
    for (const edge of allowed) {
      it(`accepts ${edge.from} -${edge.type}-> ${edge.to}`, () => {
        expect(() => sut(graphOfEveryKind(), edge)).not.to.throw();
      });
    }
  });

  it('rejects a self-edge with SELF_EDGE, whatever the type', () => {
    for (const type of ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'] as const) {
      const error = thrownBy(() => sut(graphOfEveryKind(), { from: 'T1', to: 'T1', type }));
      expect(error.code).to.equal('SELF_EDGE');
      expect(error.details).to.include({ from: 'T1', to: 'T1', type });
    }
  });

  it('rejects a missing endpoint, at either end, with INVALID_EDGE_TARGET naming it', () => {
    const draft = graphOfEveryKind();
    const missingFrom = thrownBy(() => sut(draft, { from: 'T-nope', to: 'T1', type: 'BLOCKS' }));
    const missingTo = thrownBy(() => sut(draft, { from: 'T1', to: 'G-nope', type: 'DERIVED_FROM' }));
    expect([missingFrom.code, missingTo.code]).to.deep.equal(['INVALID_EDGE_TARGET', 'INVALID_EDGE_TARGET']);
    expect(missingFrom.details.missing).to.equal('T-nope');
    expect(missingTo.details.missing).to.equal('G-nope');
  });

  it('does not mistake an inherited property name for a node', () => {
    const error = thrownBy(() => sut(graphOfEveryKind(), { from: 'constructor', to: 'T1', type: 'BLOCKS' }));
    expect(error.code).to.equal('INVALID_EDGE_TARGET');
  });

  it('rejects BLOCKS with a knowledge endpoint, at either end, with INVALID_EDGE_KIND', () => {
    const draft = graphOfEveryKind();
    const fromKnowledge = thrownBy(() => sut(draft, { from: 'K1', to: 'T1', type: 'BLOCKS' }));
    const toKnowledge = thrownBy(() => sut(draft, { from: 'G1', to: 'K1', type: 'BLOCKS' }));
    expect(fromKnowledge.code).to.equal('INVALID_EDGE_KIND');
    expect(fromKnowledge.details).to.include({ from_type: 'knowledge', to_type: 'task' });
    expect(toKnowledge.code).to.equal('INVALID_EDGE_KIND');
    expect(toKnowledge.details).to.include({ from_type: 'gate', to_type: 'knowledge' });
  });

  it('rejects SUPERSEDES between different node types with INVALID_EDGE_KIND', () => {
    const draft = graphOfEveryKind();
    for (const [from, to] of [['G1', 'T1'], ['T1', 'G1'], ['K1', 'G1'], ['G1', 'K1'], ['K1', 'T1']]) {
      const error = thrownBy(() => sut(draft, { from: from!, to: to!, type: 'SUPERSEDES' }));
      expect(error.code, `${from} SUPERSEDES ${to}`).to.equal('INVALID_EDGE_KIND');
    }
  });

  it('rejects an exact duplicate with DUPLICATE_EDGE, but not the same ends with another type or direction', () => {
    const draft = graphOfEveryKind();
    draft.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(thrownBy(() => sut(draft, { from: 'T1', to: 'T2', type: 'BLOCKS' })).code).to.equal('DUPLICATE_EDGE');
    expect(() => sut(draft, { from: 'T1', to: 'T2', type: 'DERIVED_FROM' })).not.to.throw();
    expect(() => sut(draft, { from: 'T2', to: 'T1', type: 'SUPERSEDES' })).not.to.throw();
  });

  it('rejects a BLOCKS edge that closes a cycle with CYCLE_DETECTED and the cycle in details', () => {
    const draft = graphOfEveryKind();
    draft.addEdge({ from: 'T1', to: 'G1', type: 'BLOCKS' });
    draft.addEdge({ from: 'G1', to: 'T2', type: 'BLOCKS' });
    const error = thrownBy(() => sut(draft, { from: 'T2', to: 'T1', type: 'BLOCKS' }));
    expect(error.code).to.equal('CYCLE_DETECTED');
    expect(error.details.cycle).to.deep.equal(['T2', 'T1', 'G1', 'T2']);
  });

  it('rejects a two-node BLOCKS cycle', () => {
    const draft = graphOfEveryKind();
    draft.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(thrownBy(() => sut(draft, { from: 'T2', to: 'T1', type: 'BLOCKS' })).code).to.equal('CYCLE_DETECTED');
  });

  it('finds a cycle through a chain of 20,000 BLOCKS edges without overflowing the stack', () => {
    const draft = newDraft();
    const length = 20_000;
    for (let i = 0; i < length; i++) addTask(draft, `T${i}`);
    // Pushed directly: adding them one by one through the rules would re-index 20,000 times.
    for (let i = 1; i < length; i++) draft.graph.edges.push({ from: `T${i - 1}`, to: `T${i}`, type: 'BLOCKS' });
    const error = thrownBy(() => sut(draft, { from: `T${length - 1}`, to: 'T0', type: 'BLOCKS' }));
    expect(error.code).to.equal('CYCLE_DETECTED');
    expect(error.details.cycle).to.have.length(length + 1);
  });

  it('lets other edge types run against BLOCKS (only BLOCKS cycles are refused)', () => {
    const draft = graphOfEveryKind();
    draft.addEdge({ from: 'T1', to: 'T2', type: 'BLOCKS' });
    expect(() => sut(draft, { from: 'T2', to: 'T1', type: 'DERIVED_FROM' })).not.to.throw();
  });

  it('rejects an unknown type with INVALID_EDGE_TYPE listing the allowed ones', () => {
    const error = thrownBy(() => sut(graphOfEveryKind(), { from: 'T1', to: 'T2', type: 'DEPENDS_ON' as never }));
    expect(error.code).to.equal('INVALID_EDGE_TYPE');
    expect(error.details).to.deep.equal({ type: 'DEPENDS_ON', allowed: ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'] });
  });

  it('parses edge types exactly (case matters)', () => {
    expect(parseEdgeType('SUPERSEDES')).to.equal('SUPERSEDES');
    expect(isEdgeType('blocks')).to.equal(false);
    expect(thrownBy(() => parseEdgeType(undefined)).details.type).to.equal(null);
  });

  it('compares edges by from, to and type', () => {
    expect(sameEdge({ from: 'a', to: 'b', type: 'BLOCKS' }, { from: 'a', to: 'b', type: 'BLOCKS' })).to.equal(true);
    expect(sameEdge({ from: 'a', to: 'b', type: 'BLOCKS' }, { from: 'a', to: 'b', type: 'DERIVED_FROM' })).to.equal(false);
  });
});
