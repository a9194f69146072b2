import { setNode } from '../../domain/node-map.js';
import { expect } from 'chai';
import { GraphIndex } from '../../domain/graph-index.js';
import type { TaskStatus } from '../../domain/model.js';
import { derivedStatus, derivedTaskStatus, isBlockerSatisfied, readyTaskIds, unsatisfiedBlockers } from '../../domain/status.js';
import { addGate, addKnowledge, addTask, newDraft } from '../support/graphs.js';

describe('status (spec 3.1, 3.2)', () => {
  const index = (draft: ReturnType<typeof newDraft>) => new GraphIndex(draft.graph);

  describe('derived task status', () => {
    it('is ready for an open task with no blockers', () => {
      const draft = newDraft();
      const task = addTask(draft, 'T1');
      expect(derivedTaskStatus(draft.graph, index(draft), task)).to.equal('ready');
    });

    it('is blocked while any blocker is unsatisfied, ready once all are', () => {
      const draft = newDraft();
      addTask(draft, 'T-done', { status: 'done' });
      addGate(draft, 'G-open');
      const task = addTask(draft, 'T1', {}, { blocked_by: ['T-done', 'G-open'] });
      expect(derivedTaskStatus(draft.graph, index(draft), task)).to.equal('blocked');
      expect(unsatisfiedBlockers(draft.graph, index(draft), 'T1')).to.deep.equal(['G-open']);
      draft.putNode({ ...draft.requireNode('G-open'), status: 'resolved' } as never);
      expect(derivedTaskStatus(draft.graph, index(draft), task)).to.equal('ready');
    });

    it('is backlog for an open task kept out of the pool, blocked or not', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      const free = addTask(draft, 'T1', { backlog: true });
      const blocked = addTask(draft, 'T2', { backlog: true }, { blocked_by: ['G1'] });
      expect(derivedTaskStatus(draft.graph, index(draft), free)).to.equal('backlog');
      expect(derivedTaskStatus(draft.graph, index(draft), blocked)).to.equal('backlog');
    });

    it('is the stored status for every status other than open', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      for (const status of ['in_progress', 'submitted', 'done', 'archived', 'canceled'] as TaskStatus[]) {
        const task = addTask(draft, `T-${status}`, { status }, { blocked_by: ['G1'] });
        expect(derivedTaskStatus(draft.graph, index(draft), task)).to.equal(status);
      }
    });

    it('is the stored status for gates and knowledge', () => {
      const draft = newDraft();
      const gate = addGate(draft, 'G1', { status: 'superseded' });
      const knowledge = addKnowledge(draft, 'K1', { status: 'deprecated' });
      expect(derivedStatus(draft.graph, index(draft), gate)).to.equal('superseded');
      expect(derivedStatus(draft.graph, index(draft), knowledge)).to.equal('deprecated');
    });

    it('lists exactly the ready tasks', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      addTask(draft, 'T-ready');
      addTask(draft, 'T-blocked', {}, { blocked_by: ['G1'] });
      addTask(draft, 'T-backlog', { backlog: true });
      addTask(draft, 'T-done', { status: 'done' });
      expect([...readyTaskIds(draft.graph, index(draft))]).to.deep.equal(['T-ready']);
    });
  });

  describe('BLOCKS satisfaction', () => {
    const satisfied = (draft: ReturnType<typeof newDraft>, id: string) => isBlockerSatisfied(draft.graph, index(draft), id);

    it('a task blocker satisfies only when done or archived; submitted never does', () => {
      const draft = newDraft();
      const statuses: TaskStatus[] = ['open', 'in_progress', 'submitted', 'done', 'archived', 'canceled'];
      for (const status of statuses) addTask(draft, `T-${status}`, { status });
      expect(statuses.filter((status) => satisfied(draft, `T-${status}`))).to.deep.equal(['done', 'archived']);
    });

    it('a gate blocker satisfies only when resolved', () => {
      const draft = newDraft();
      for (const status of ['open', 'resolved', 'canceled'] as const) addGate(draft, `G-${status}`, { status });
      expect(['open', 'resolved', 'canceled'].filter((status) => satisfied(draft, `G-${status}`))).to.deep.equal(['resolved']);
    });

    it('a superseded gate satisfies when its chain of successors ends in a resolved gate', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      addGate(draft, 'G2', {}, { supersedes: 'G1' });
      addGate(draft, 'G3', {}, { supersedes: 'G2' });
      expect(satisfied(draft, 'G1'), 'chain ends in an open gate').to.equal(false);
      draft.putNode({ ...draft.requireNode('G3'), status: 'resolved' } as never);
      expect(satisfied(draft, 'G1'), 'chain ends in a resolved gate').to.equal(true);
      expect(satisfied(draft, 'G2')).to.equal(true);
    });

    it('walks a chain of 5,000 superseded gates without recursion', () => {
      const draft = newDraft();
      const gate = addGate(draft, 'G0');
      // Built directly (the rules add one edge at a time, which is what this test is not about).
      for (let at = 1; at <= 5000; at++) {
        setNode(draft.graph, `G${at - 1}`, { ...gate, id: `G${at - 1}`, status: 'superseded' });
        setNode(draft.graph, `G${at}`, { ...gate, id: `G${at}` });
        draft.graph.edges.push({ from: `G${at}`, to: `G${at - 1}`, type: 'SUPERSEDES' });
      }
      expect(satisfied(draft, 'G0')).to.equal(false);
      setNode(draft.graph, 'G5000', { ...gate, id: 'G5000', status: 'resolved' });
      expect(satisfied(draft, 'G0')).to.equal(true);
    });

    it('a superseded gate does not satisfy when its chain ends in a canceled gate', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      addGate(draft, 'G2', { status: 'canceled' }, { supersedes: 'G1' });
      expect(satisfied(draft, 'G1')).to.equal(false);
    });

    it('a superseded gate with no successor does not satisfy', () => {
      const draft = newDraft();
      addGate(draft, 'G1', { status: 'superseded' });
      expect(satisfied(draft, 'G1')).to.equal(false);
    });

    it('with several successors, one chain ending resolved is enough', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      addGate(draft, 'G2', {}, { supersedes: 'G1' });
      // A second successor can only be linked by hand: G1 is already superseded.
      addGate(draft, 'G3', { status: 'resolved' });
      draft.addEdge({ from: 'G3', to: 'G1', type: 'SUPERSEDES' });
      expect(satisfied(draft, 'G1')).to.equal(true);
    });

    it('a cycle of superseded gates ends the walk unsatisfied', () => {
      const draft = newDraft();
      addGate(draft, 'G1', { status: 'superseded' });
      addGate(draft, 'G2', { status: 'superseded' });
      draft.addEdge({ from: 'G2', to: 'G1', type: 'SUPERSEDES' });
      draft.addEdge({ from: 'G1', to: 'G2', type: 'SUPERSEDES' });
      expect(satisfied(draft, 'G1')).to.equal(false);
    });

    it('a task blocked by a superseded gate follows the chain', () => {
      const draft = newDraft();
      addGate(draft, 'G1');
      const task = addTask(draft, 'T1', {}, { blocked_by: ['G1'] });
      addGate(draft, 'G2', { status: 'resolved' }, { supersedes: 'G1' });
      expect(derivedTaskStatus(draft.graph, index(draft), task)).to.equal('ready');
    });

    it('knowledge and missing nodes never satisfy', () => {
      const draft = newDraft();
      addKnowledge(draft, 'K1');
      expect(satisfied(draft, 'K1')).to.equal(false);
      expect(satisfied(draft, 'T-missing')).to.equal(false);
    });
  });
});
