import { expect } from 'chai';
import { AnnouncedCommits } from '../../../adapters/server/announced-commits.js';

describe('AnnouncedCommits (the commits a waiting next hears)', () => {
  it('says when the first wait begins and when the last one ends, over every project, and nothing in between', async () => {
    const watched: boolean[] = [];
    const sut = new AnnouncedCommits((value) => watched.push(value));
    const a = sut.watch('p1', 10_000);
    const b = sut.watch('p2', 10_000);
    expect(watched).to.deep.equal([true]);
    a.close();
    a.close();
    expect(watched).to.deep.equal([true]);
    sut.announce('p2');
    expect(await b.next()).to.equal(true);
    b.close();
    expect(watched).to.deep.equal([true, false]);
    sut.watch('p1', 10_000).close();
    expect(watched).to.deep.equal([true, false, true, false]);
  });
});
