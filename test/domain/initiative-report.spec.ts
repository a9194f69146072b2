import { expect } from 'chai';
import { initiativesReport as sut } from '../../domain/initiative-report.js';
import { GraphFixture } from '../support/graph-fixture.js';

describe('domain/initiative-report', () => {
  function project(): GraphFixture {
    const fixture = new GraphFixture();
    fixture.graph.initiatives.empty = { desc: 'nothing yet', created_at: fixture.now };
    fixture.task('T1');
    fixture.task('T2');
    fixture.gate('G');
    fixture.knowledge('K', { tags: ['x'] });
    fixture.task('U1', { initiative: 'ghost' });
    fixture.knowledge('U2', { tags: ['x'] }, { initiative: 'phantom' });
    return fixture;
  }

  it('lists initiatives with nodes and their counts, and counts nodes of unregistered initiatives', () => {
    expect(sut(project().graph, false)).to.deep.equal({
      initiatives: [{ name: 'demo', desc: '', created_at: '2030-01-01T00:00:00.000Z', nodes: 4, tasks: 2, knowledge: 1 }],
      unregistered: { nodes: 2, values: ['ghost', 'phantom'] },
      all: false,
    });
  });

  it('--all includes initiatives without nodes', () => {
    const report = sut(project().graph, true);
    expect(report.all).to.equal(true);
    expect(report.initiatives.map((i) => [i.name, i.nodes])).to.deep.equal([['demo', 4], ['empty', 0]]);
  });
});
