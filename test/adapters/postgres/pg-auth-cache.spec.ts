import { expect } from 'chai';
import { PgAuthCache } from '../../../adapters/postgres/pg-auth-cache.js';

describe('PgAuthCache', () => {
  let now: number;
  let lookups: number;
  let sut: PgAuthCache;
  const lookup = (value: string | null) => async () => (lookups++, value);

  beforeEach(() => {
    now = 0;
    lookups = 0;
    sut = new PgAuthCache(1_000, () => now);
    sut.listening(true);
  });

  it('keeps what it found for its trusted time, then asks again', async () => {
    expect(await sut.get('session:a', lookup('A'))).to.equal('A');
    now = 999;
    expect(await sut.get('session:a', lookup('B'))).to.equal('A');
    now = 1_000;
    expect(await sut.get('session:a', lookup('B'))).to.equal('B');
    expect(lookups).to.equal(2);
  });

  it('keeps nothing it did not find: a bearer logged in elsewhere since is found at its next check', async () => {
    expect(await sut.get('session:a', lookup(null))).to.equal(null);
    expect(await sut.get('session:a', lookup('A'))).to.equal('A');
    expect(lookups).to.equal(2);
  });

  it('asks every time while not listening, and forgets everything at a change or when it stops listening', async () => {
    await sut.get('session:a', lookup('A'));
    sut.changed();
    expect(await sut.get('session:a', lookup('B'))).to.equal('B');
    sut.listening(false);
    expect(await sut.get('session:a', lookup('C'))).to.equal('C');
    expect(await sut.get('session:a', lookup('D'))).to.equal('D');
    expect(lookups).to.equal(4);
  });

  it('checks of one key that arrive together share one lookup, unless a change was heard since it began', async () => {
    let finish!: (value: string) => void;
    const slow = () => (lookups++, new Promise<string>((resolve) => (finish = resolve)));
    const together = [sut.get('session:a', slow), sut.get('session:a', slow)];
    finish('A');
    expect(await Promise.all(together)).to.deep.equal(['A', 'A']);
    expect(lookups).to.equal(1);
    sut.changed();
    const before = sut.get('session:a', slow);
    const finishBefore = finish;
    sut.changed();
    const after = sut.get('session:a', slow);
    finishBefore('old');
    finish('new');
    expect([await before, await after, lookups]).to.deep.equal(['old', 'new', 3]);
  });

  it('a lookup under way when a change is heard keeps nothing: it may have read the rows from before it', async () => {
    let finish!: (value: string) => void;
    const pending = sut.get('session:a', () => new Promise<string>((resolve) => (finish = resolve)));
    sut.changed();
    finish('stale');
    expect(await pending).to.equal('stale');
    expect(await sut.get('session:a', lookup('fresh'))).to.equal('fresh');
  });
});
