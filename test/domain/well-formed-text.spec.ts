import { expect } from 'chai';
import { illFormedTextIn, isWellFormedText, withWellFormedText } from '../../domain/well-formed-text.js';

describe('well-formed text (domain/well-formed-text.ts)', () => {
  it('a whole surrogate pair is well-formed; either half alone, at any place in the text, is not', () => {
    expect(isWellFormedText('a \ud83d\ude00 b')).to.equal(true);
    for (const text of ['\ud83d', '\ude00', 'a\ud83d', '\ude00a', '\ude00\ud83d', '\ud83d\ud83d\ude00']) expect(isWellFormedText(text), JSON.stringify(text)).to.equal(false);
  });

  it('finds the first ill-formed string or key at any depth and says where', () => {
    expect(illFormedTextIn({ a: ['ok', { b: 'ok' }], c: 1, d: null })).to.equal(null);
    expect(illFormedTextIn({ a: ['ok', { b: 'x\ud800' }] })).to.deep.equal({ path: 'a[1].b', key: false });
    expect(illFormedTextIn({ a: { ['\udc00']: 1 } })).to.deep.equal({ path: 'a', key: true });
    expect(illFormedTextIn('\udc00', 'title')).to.deep.equal({ path: 'title', key: false });
  });

  it('shows every half of a pair as U+FFFD, in strings and keys at any depth, and says where each was, its place and its code unit', () => {
    const { value, replaced } = withWellFormedText({ node: { title: 'a\ud83d b\ude00', meta: { ['k\udc00']: ['\ud800'] }, ok: 'a \ud83d\ude00 pair' }, n: 1 });
    expect(value).to.deep.equal({ node: { title: 'a\ufffd b\ufffd', meta: { 'k\ufffd': ['\ufffd'] }, ok: 'a \ud83d\ude00 pair' }, n: 1 });
    expect(replaced).to.deep.equal([
      { path: 'node.title', halves: [{ at: 1, code_unit: 'D83D' }, { at: 4, code_unit: 'DE00' }] },
      { path: 'node.meta.k\ufffd', key: true, halves: [{ at: 1, code_unit: 'DC00' }] },
      { path: 'node.meta.k\ufffd[0]', halves: [{ at: 0, code_unit: 'D800' }] },
    ]);
  });

  it('leaves a value that needs nothing as it is, the same object', () => {
    const answer = { node: { title: 'a \ud83d\ude00 pair', tags: ['x'] } };
    const shown = withWellFormedText(answer);
    expect(shown.value).to.equal(answer);
    expect(shown.replaced).to.deep.equal([]);
  });

  it('walks 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = '\ud800';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(illFormedTextIn(deep)?.key).to.equal(false);
  });
});
