import { expect } from 'chai';
import { SnapshotCache } from '../../../application/board/snapshot-cache.js';

describe('the board snapshot cache', () => {
  /** A build that says how often it ran. */
  function counted(text: string) {
    const build = () => {
      build.calls += 1;
      return text;
    };
    build.calls = 0;
    return build;
  }

  it('builds a revision once, whoever asks, and again when the revision moves', () => {
    const cache = new SnapshotCache();
    const first = counted('{"revision":1}');
    expect(cache.text('p', '"g1r1"', first)).to.equal('{"revision":1}');
    expect(cache.text('p', '"g1r1"', first)).to.equal('{"revision":1}');
    expect(first.calls).to.equal(1);
    const second = counted('{"revision":2}');
    expect(cache.text('p', '"g1r2"', second)).to.equal('{"revision":2}');
    expect(second.calls).to.equal(1);
    // Another project's snapshot is its own.
    expect(cache.text('q', '"g1r1"', counted('{"q":1}'))).to.equal('{"q":1}');
  });

  it('keeps at most its size, dropping the project served longest ago, never the one just served', () => {
    const cache = new SnapshotCache(10);
    cache.text('a', '"g1r1"', () => 'aaaa');
    cache.text('b', '"g1r1"', () => 'bbbb');
    cache.text('a', '"g1r1"', () => 'rebuilt'); // a hit: a is now the most recent
    cache.text('c', '"g1r1"', () => 'cccc'); // 12 characters: b goes
    const b = counted('bbbb');
    cache.text('b', '"g1r1"', b);
    expect(b.calls, 'b was dropped').to.equal(1);
    const huge = counted('x'.repeat(50));
    cache.text('h', '"g1r1"', huge);
    cache.text('h', '"g1r1"', huge);
    expect(huge.calls, 'larger than the bound, still kept while it is the one served').to.equal(1);
  });
});
