import { expect } from 'chai';
import { createNode, type CreationRequest } from '../../domain/creation.js';
import type { GateNode, KnowledgeNode, TaskNode } from '../../domain/model.js';
import { NOW, addGate, addKnowledge, addTask, newDraft, thrownBy } from '../support/graphs.js';

describe('creation (spec 2.2, 4.2)', () => {
  function request(overrides: Partial<CreationRequest> = {}): CreationRequest {
    return {
      type: 'task',
      common: { title: 'A task', initiative: 'core' },
      specific: {},
      links: {},
      allowUnregisteredInitiative: false,
      op: 'add-task',
      ...overrides,
    };
  }
  const suffix = () => 'cafe0123';

  it('creates a task with every field of spec 2.2, revision 1 and a generated id', () => {
    const draft = newDraft('alice');
    const node = createNode(draft, request({ common: { title: 'A task', initiative: 'core', tags: ['api'], meta: { points: 3 } } }), suffix);
    expect(node).to.deep.equal({
      id: 'T-cafe0123', kind: 'resolvable', subkind: 'task', title: 'A task', body: '', refs: [], meta: { points: 3 },
      initiative: 'core', domain: null, tags: ['api'], revision: 1, notes: [], created_at: NOW, created_by: 'alice',
      updated_at: NOW, status: 'open', definition: null, acceptance: null, backlog: false, claim: null,
      submitted_by: null, submitted_at: null, done_by: null, done_at: null, accepted_by: null, accepted_at: null, note: null,
    });
  });

  it('creates gates and knowledge with their own fields and initial statuses', () => {
    const draft = newDraft();
    const gate = createNode(draft, request({ type: 'gate', specific: { purpose: 'Pick' } }), suffix) as GateNode;
    const knowledge = createNode(draft, request({ type: 'knowledge' }), suffix) as KnowledgeNode;
    expect(gate).to.include({ id: 'G-cafe0123', kind: 'resolvable', subkind: 'gate', status: 'open', purpose: 'Pick', resolution: null });
    expect(gate).to.include.keys('resolution_mode', 'body', 'refs', 'meta', 'domain', 'tags');
    expect(knowledge).to.include({ id: 'K-cafe0123', kind: 'knowledge', status: 'active', knowledge_type: null, mitigation: null });
    expect(knowledge.scope).to.deep.equal({ domains: [], initiatives: [], tags: [], node_ids: [] });
    expect(knowledge).to.include.keys('deprecation_reason', 'deprecated_at', 'deprecated_by');
  });

  it('records one log entry and bumps the state revision once per creation', () => {
    const draft = newDraft('bob');
    createNode(draft, request({ id: 'T1' }), suffix);
    expect(draft.graph.revision).to.equal(1);
    expect(draft.changes()!.log).to.deep.equal([{ revision: 1, at: NOW, by: 'bob', op: 'add-task', node: 'T1' }]);
  });

  it('adds BLOCKS edges from each blocker and DERIVED_FROM edges to each source, once each', () => {
    const draft = newDraft();
    addGate(draft, 'G1');
    addKnowledge(draft, 'K1');
    createNode(draft, request({ id: 'T1', links: { blocked_by: ['G1', 'G1'], derived_from: ['K1'] } }), suffix);
    expect(draft.graph.edges).to.deep.equal([
      { from: 'G1', to: 'T1', type: 'BLOCKS' },
      { from: 'T1', to: 'K1', type: 'DERIVED_FROM' },
    ]);
  });

  it('refuses an unregistered initiative with INITIATIVE_NOT_FOUND unless allowed', () => {
    const draft = newDraft();
    const refused = thrownBy(() => createNode(draft, request({ common: { title: 'x', initiative: 'nowhere' } }), suffix));
    expect(refused.code).to.equal('INITIATIVE_NOT_FOUND');
    const allowed = createNode(draft, request({ common: { title: 'x', initiative: 'nowhere' }, allowUnregisteredInitiative: true }), suffix);
    expect(allowed.initiative).to.equal('nowhere');
  });

  it('refuses a status the node type cannot store with INVALID_STATUS', () => {
    const error = thrownBy(() => createNode(newDraft(), request({ type: 'gate', specific: { status: 'done' as never } }), suffix));
    expect(error.code).to.equal('INVALID_STATUS');
    expect(error.details).to.deep.include({ status: 'done', allowed: ['open', 'resolved', 'superseded', 'canceled'] });
  });

  it('needs an agent to create anything (MISSING_AGENT)', () => {
    expect(thrownBy(() => createNode(newDraft(null), request(), suffix)).code).to.equal('MISSING_AGENT');
  });

  it('reports a missing blocker as INVALID_EDGE_TARGET', () => {
    const error = thrownBy(() => createNode(newDraft(), request({ links: { blocked_by: ['G-missing'] } }), suffix));
    expect(error.code).to.equal('INVALID_EDGE_TARGET');
    expect(error.details.missing).to.equal('G-missing');
  });

  describe('--supersedes', () => {
    it('on a gate: the old gate becomes superseded, its revision bumps, and its incoming BLOCKS move to the new gate', () => {
      const draft = newDraft('alice');
      addTask(draft, 'T-before');
      addGate(draft, 'G-other');
      addGate(draft, 'G-old', {}, { blocked_by: ['T-before', 'G-other'] });
      addTask(draft, 'T-after', {}, { blocked_by: ['G-old'] });
      createNode(draft, request({ id: 'G-new', type: 'gate', links: { blocked_by: ['G-other'], supersedes: 'G-old' } }), suffix);

      expect(draft.requireNode('G-old')).to.include({ status: 'superseded', revision: 2 });
      expect(draft.graph.edges).to.deep.equal([
        { from: 'G-old', to: 'T-after', type: 'BLOCKS' },
        { from: 'G-other', to: 'G-new', type: 'BLOCKS' },
        { from: 'G-new', to: 'G-old', type: 'SUPERSEDES' },
        { from: 'T-before', to: 'G-new', type: 'BLOCKS' },
      ]);
      expect(Object.keys(draft.changes()!.nodes)).to.include.members(['G-old', 'G-new']);
    });

    it('on a gate: a resolved gate may be superseded; a superseded or canceled one may not (INVALID_STATUS)', () => {
      const draft = newDraft();
      addGate(draft, 'G-resolved', { status: 'resolved' });
      addGate(draft, 'G-superseded', { status: 'superseded' });
      addGate(draft, 'G-canceled', { status: 'canceled' });
      expect(() => createNode(draft, request({ id: 'G1', type: 'gate', links: { supersedes: 'G-resolved' } }), suffix)).not.to.throw();
      for (const old of ['G-superseded', 'G-canceled']) {
        const error = thrownBy(() => createNode(draft, request({ id: `${old}-next`, type: 'gate', links: { supersedes: old } }), suffix));
        expect(error.code, old).to.equal('INVALID_STATUS');
      }
    });

    it('on a task: refused with INVALID_ARGUMENT', () => {
      const draft = newDraft();
      addTask(draft, 'T-old');
      const error = thrownBy(() => createNode(draft, request({ id: 'T-new', links: { supersedes: 'T-old' } }), suffix));
      expect(error.code).to.equal('INVALID_ARGUMENT');
      expect(error.details.field).to.equal('supersedes');
    });

    it('of a node of another type: INVALID_EDGE_KIND', () => {
      const draft = newDraft();
      addKnowledge(draft, 'K-old');
      const error = thrownBy(() => createNode(draft, request({ id: 'G-new', type: 'gate', links: { supersedes: 'K-old' } }), suffix));
      expect(error.code).to.equal('INVALID_EDGE_KIND');
    });

    it('of a missing node: INVALID_EDGE_TARGET', () => {
      const error = thrownBy(() => createNode(newDraft(), request({ type: 'gate', links: { supersedes: 'G-missing' } }), suffix));
      expect(error.code).to.equal('INVALID_EDGE_TARGET');
    });

    it('on knowledge: the old knowledge is deprecated by the new one, once', () => {
      const draft = newDraft('alice');
      addKnowledge(draft, 'K-old');
      createNode(draft, request({ id: 'K-new', type: 'knowledge', links: { supersedes: 'K-old' } }), suffix);
      expect(draft.requireNode('K-old')).to.include({
        status: 'deprecated',
        deprecation_reason: 'superseded by K-new',
        deprecated_at: NOW,
        deprecated_by: 'alice',
        revision: 2,
      });
      createNode(draft, request({ id: 'K-newer', type: 'knowledge', links: { supersedes: 'K-old' } }), suffix);
      expect(draft.requireNode('K-old')).to.include({ deprecation_reason: 'superseded by K-new', revision: 2 });
    });
  });

  it('leaves a task field set as given (the caller validated it)', () => {
    const node = createNode(newDraft(), request({ specific: { acceptance: 'Tests pass', backlog: true } }), suffix) as TaskNode;
    expect(node).to.include({ acceptance: 'Tests pass', backlog: true });
  });
});

