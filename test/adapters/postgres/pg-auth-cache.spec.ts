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

  describe('with a recheck of every entry together (issue 25 item 4)', () => {
    let rechecked: string[][];
    let rows: Map<string, string>;

    beforeEach(() => {
      rechecked = [];
      rows = new Map([
        ['session:a', 'A'],
        ['session:b', 'B'],
        ['session:c', 'C'],
      ]);
      sut.recheckWith(async (keys) => (rechecked.push(keys), new Map([...rows].filter(([key]) => keys.includes(key)))));
    });

    it('looks up again, in one recheck, only the entries asked for since they were found; the others are dropped, and a key it did not find is gone', async () => {
      const fromRows = (key: string) => async () => (lookups++, rows.get(key) ?? null);
      for (const key of ['session:a', 'session:b', 'session:c']) await sut.get(key, fromRows(key));
      now = 500;
      await sut.get('session:a', fromRows('session:a'));
      await sut.get('session:b', fromRows('session:b'));
      rows.delete('session:b');
      now = 1_000;
      const [a, b] = await Promise.all([sut.get('session:a', fromRows('session:a')), sut.get('session:b', fromRows('session:b'))]);
      expect([a, b]).to.deep.equal(['A', null]);
      expect(rechecked).to.deep.equal([['session:a', 'session:b']]);
      expect(lookups).to.equal(3);
      // c was not asked for in its trusted time: it was dropped, so it is looked up on its own.
      rows.set('session:c', 'C2');
      expect(await sut.get('session:c', fromRows('session:c'))).to.equal('C2');
      expect(lookups).to.equal(4);
    });

    it('a recheck under way when a change is heard keeps nothing, and its waiters look up on their own', async () => {
      await sut.get('session:a', lookup('A'));
      now = 1_000;
      let finish!: () => void;
      sut.recheckWith(async (keys) => (rechecked.push(keys), await new Promise<void>((resolve) => (finish = resolve)), new Map([['session:a', 'stale']])));
      const pending = sut.get('session:a', lookup('fresh'));
      await new Promise((resolve) => setImmediate(resolve));
      sut.changed();
      finish();
      expect(await pending).to.equal('fresh');
      expect(await sut.get('session:a', lookup('later'))).to.equal('fresh');
    });
  });
});
