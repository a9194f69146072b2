import { expect } from 'chai';
import { GraphDraft } from '../../domain/draft.js';
import * as lifecycle from '../../domain/lifecycle.js';
import { emptyGraph } from '../../domain/model.js';
import { projectState } from '../../domain/project-state.js';
import { compareRank, DEFAULT_PRIORITY, ReadyRanking, type RankedTask } from '../../domain/ranking.js';
import { updateNode } from '../../domain/update.js';
import { GraphFixture } from '../support/graph-fixture.js';

const ranked = (fixture: GraphFixture) => fixture.draft(null).ranking.ranked().inOrder().map((entry) => entry.id);

/** The ranking of the fixture's graph derived afresh, from nothing kept. */
const fresh = (fixture: GraphFixture) => {
  const copy = projectState(structuredClone({ ...fixture.graph }));
  return new GraphDraft(copy, fixture.now, null).ranking.ranked().inOrder().map((entry) => ({ ...entry }));
};

const entry = (id: string, priority: number, critical_path: number, created_at = '2030-01-01T00:00:00.000Z'): RankedTask => ({
  id,
  priority,
  priority_set: true,
  critical_path,
  created_at,
});

describe('domain/ranking', () => {
  describe('compareRank: priority, then critical path, then age, then id', () => {
    it('a lower priority number wins over a longer critical path', () => {
      expect(compareRank(entry('A', 1, 1), entry('B', 2, 50))).to.be.below(0);
    });

    it('at equal priority, the longer critical path wins over age', () => {
      expect(compareRank(entry('A', 2, 3, '2030-01-02T00:00:00.000Z'), entry('B', 2, 2, '2030-01-01T00:00:00.000Z'))).to.be.below(0);
    });

    it('at equal priority and path, the older wins, then the smaller id', () => {
      expect(compareRank(entry('B', 2, 1, '2030-01-01T00:00:00.000Z'), entry('A', 2, 1, '2030-01-02T00:00:00.000Z'))).to.be.below(0);
      expect(compareRank(entry('A', 2, 1), entry('B', 2, 1))).to.be.below(0);
    });
  });

  describe('ReadyRanking', () => {
    it('ranks ready tasks only; a task without a priority ranks at the default, 2', () => {
      const fixture = new GraphFixture();
      fixture.task('LOW', { specific: { priority: 3 } });
      fixture.task('PLAIN');
      fixture.task('HIGH', { specific: { priority: 1 } });
      fixture.task('WAITS', { blocked_by: ['PLAIN'], specific: { priority: 0 } });
      expect(ranked(fixture)).to.deep.equal(['HIGH', 'PLAIN', 'LOW']);
      const plain = fixture.draft(null).ranking.rankOf('PLAIN')!;
      expect(plain).to.include({ priority: DEFAULT_PRIORITY, priority_set: false, critical_path: 2 });
    });

    it('the critical path counts unfinished tasks down the longest chain, through gates, not finished ones', () => {
      const fixture = new GraphFixture();
      fixture.task('ROOT');
      fixture.task('SHORT');
      fixture.gate('G', { blocked_by: ['ROOT'] });
      fixture.task('MID', { blocked_by: ['G'] });
      fixture.task('END', { blocked_by: ['MID'] });
      fixture.task('SIDE', { blocked_by: ['SHORT'] });
      const path = (id: string) => fixture.draft(null).ranking.rankOf(id)!.critical_path;
      expect(path('ROOT')).to.equal(3);
      expect(path('SHORT')).to.equal(2);
      expect(ranked(fixture)).to.deep.equal(['ROOT', 'SHORT']);
      // A finished task on the chain is no work waiting any more.
      fixture.as('orchestrator', (draft) => lifecycle.cancel(draft, 'END', 'not needed'));
      expect(path('ROOT')).to.equal(2);
    });

    it('is kept change by change: what a change moves is derived again, the rest is not', () => {
      const fixture = new GraphFixture();
      for (let chain = 0; chain < 200; chain++) {
        fixture.task(`A${chain}`);
        fixture.task(`B${chain}`, { blocked_by: [`A${chain}`] });
      }
      const ranking: ReadyRanking = fixture.draft(null).ranking;
      expect(ranking.ranked().size).to.equal(200);
      const before = ranking.derivations;
      fixture.as('alice', (draft) => lifecycle.take(draft, 'A7'));
      fixture.as('alice', (draft) => lifecycle.submit(draft, 'A7', 'done'));
      fixture.as('bob', (draft) => lifecycle.accept(draft, 'A7'));
      expect(ranked(fixture)).to.include('B7').and.not.include('A7');
      expect(ranking.derivations - before, 'paths derived again').to.be.below(10);
      expect(ranked(fixture)).to.deep.equal(fresh(fixture).map((task) => task.id));
    });

    it('a fresh ranking derives paths down from the ready tasks only, never through the finished work upstream', () => {
      const fixture = new GraphFixture();
      for (let step = 0; step < 300; step++) {
        fixture.task(`DONE${step}`, { blocked_by: step === 0 ? [] : [`DONE${step - 1}`] });
        fixture.as('alice', (draft) => lifecycle.take(draft, `DONE${step}`));
        fixture.as('alice', (draft) => lifecycle.submit(draft, `DONE${step}`, 'done'));
        fixture.as('bob', (draft) => lifecycle.accept(draft, `DONE${step}`));
      }
      fixture.task('READY', { blocked_by: ['DONE299'] });
      fixture.task('NEXT', { blocked_by: ['READY'] });
      const copy = projectState(structuredClone({ ...fixture.graph }));
      const ranking = new GraphDraft(copy, fixture.now, null).ranking;
      expect(ranking.rankOf('READY')).to.include({ critical_path: 2 });
      expect(ranking.derivations, 'paths derived').to.equal(2);
    });

    it('agrees with a fresh derivation after every step of random work (model-based)', () => {
      let seed = 20261125;
      const random = (below: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % below;
      };
      const fixture = new GraphFixture();
      const ids: string[] = [];
      for (let step = 0; step < 300; step++) {
        const choice = random(6);
        const some = () => ids[random(ids.length)]!;
        try {
          if (choice <= 1 || ids.length < 3) {
            const id = `T${step}`;
            const blockers = ids.length > 0 && random(2) === 0 ? [some()] : [];
            fixture.task(id, { blocked_by: blockers, specific: random(3) === 0 ? { priority: random(5) } : {} });
            ids.push(id);
          } else if (choice === 2) {
            const id = some();
            fixture.as('alice', (draft) => lifecycle.take(draft, id));
            fixture.as('alice', (draft) => lifecycle.submit(draft, id, 'n'));
            fixture.as('bob', (draft) => lifecycle.accept(draft, id));
          } else if (choice === 3) {
            const id = some();
            fixture.as('alice', (draft) => updateNode(draft, id, { priority: random(5) }, { allowUnregisteredInitiative: false }));
          } else if (choice === 4) {
            const [from, to] = [some(), some()];
            fixture.as('planner', (draft) => draft.addEdge({ from, to, type: 'BLOCKS' }));
          } else {
            const [from, to] = [some(), some()];
            fixture.as('planner', (draft) => draft.removeEdge({ from, to, type: 'BLOCKS' }));
          }
        } catch {
          // A step the rules refuse (a cycle, a task not ready) changes nothing; the check below still runs.
        }
        const kept = fixture.draft(null).ranking.ranked().inOrder().map((task) => ({ ...task }));
        expect(kept, `after step ${step}`).to.deep.equal(fresh(fixture));
      }
    });

    it('a draft rolled back leaves the ranking as it was', () => {
      const fixture = new GraphFixture();
      fixture.task('A');
      fixture.task('B', { blocked_by: ['A'] });
      fixture.task('C');
      expect(ranked(fixture)).to.deep.equal(['A', 'C']);
      const draft = fixture.draft('alice');
      lifecycle.take(draft, 'A');
      draft.addEdge({ from: 'C', to: 'B', type: 'BLOCKS' });
      expect(draft.ranking.ranked().inOrder().map((task) => task.id)).to.deep.equal(['C']);
      draft.rollback();
      expect(ranked(fixture)).to.deep.equal(['A', 'C']);
      expect(ranked(fixture)).to.deep.equal(fresh(fixture).map((task) => task.id));
    });
  });

  it('an empty project ranks nothing', () => {
    expect(new GraphDraft(projectState(emptyGraph()), '2030-01-01T00:00:00.000Z', null).ranking.ranked().size).to.equal(0);
  });
});
