import { expect } from 'chai';
import { accept, resolve } from '../../domain/lifecycle.js';
import { readyTaskIds } from '../../domain/status.js';
import type { GraphDraft } from '../../domain/draft.js';
import type { NodeId } from '../../domain/model.js';
import { addGate, addTask, newDraft } from '../support/graphs.js';

/** A small deterministic PRNG, so a failing graph can be rebuilt from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Tasks and gates in every status that matters, BLOCKS fan-in and supersede chains. */
function randomGraph(seed: number): { draft: GraphDraft; submitted: NodeId[]; open: NodeId[] } {
  const next = random(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)]!;
  const draft = newDraft('orchestrator');
  const ids: NodeId[] = [];
  const submitted: NodeId[] = [];
  const open: NodeId[] = [];
  for (let i = 0; i < 40; i++) {
    const blockers = ids.filter(() => next() < 0.08);
    if (next() < 0.3) {
      const id = `G${i}`;
      const supersedable = open.filter((gate) => draft.node(gate)?.status === 'open');
      const supersedes = supersedable.length > 0 && next() < 0.3 ? pick(supersedable) : undefined;
      addGate(draft, id, { status: next() < 0.2 ? 'resolved' : 'open' }, { blocked_by: blockers, ...(supersedes ? { supersedes } : {}) });
      if (draft.node(id)!.status === 'open') open.push(id);
      ids.push(id);
    } else {
      const id = `T${i}`;
      const status = pick(['open', 'open', 'submitted', 'done', 'in_progress'] as const);
      const claim = status === 'in_progress' ? { by: 'alice', at: '2026-01-01T00:00:00.000Z' } : null;
      addTask(draft, id, { status, claim, submitted_by: status === 'submitted' ? 'alice' : null, backlog: next() < 0.1 }, { blocked_by: blockers });
      if (status === 'submitted') submitted.push(id);
      ids.push(id);
    }
  }
  return { draft, submitted, open: open.filter((gate) => draft.node(gate)?.status === 'open') };
}

describe('newly_ready (exact: not ready before, ready after)', () => {
  for (let seed = 1; seed <= 60; seed++) {
    it(`matches a whole-graph comparison on random graph ${seed}`, () => {
      const { draft, submitted, open } = randomGraph(seed);
      const targets = [...submitted.map((id) => ['accept', id] as const), ...open.map((id) => ['resolve', id] as const)];
      for (const [action, id] of targets) {
        const before = readyTaskIds(draft.graph, draft.index);
        const result = action === 'accept' ? accept(draft, id) : resolve(draft, id, 'yes', 'because');
        const after = readyTaskIds(draft.graph, draft.index);
        expect(result.newly_ready, `${action} ${id}`).to.deep.equal([...after].filter((ready) => !before.has(ready)).sort());
      }
    });
  }
});
