import { expect } from 'chai';
import { illFormedTextIn, isWellFormedText } from '../../domain/well-formed-text.js';

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

  it('walks 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = '\ud800';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(illFormedTextIn(deep)?.key).to.equal(false);
  });
});
