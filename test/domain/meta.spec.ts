import { expect } from 'chai';
import { MAX_META_DEPTH, assertMetaDepth } from '../../domain/meta.js';

const nested = (depth: number): Record<string, unknown> => {
  let meta: Record<string, unknown> = {};
  for (let level = 1; level < depth; level++) meta = level % 2 ? { a: meta } : { list: [1, meta] as unknown as Record<string, unknown> };
  return meta;
};

describe('meta depth', () => {
  it(`accepts meta nested ${MAX_META_DEPTH} levels deep, arrays counting as levels`, () => {
    expect(() => assertMetaDepth({ a: [[{}]] })).to.not.throw();
    expect(() => assertMetaDepth({ a: Array.from({ length: MAX_META_DEPTH - 2 }).reduce<unknown>((inner) => [inner], {}) } as Record<string, unknown>)).to.not.throw();
  });

  for (const depth of [MAX_META_DEPTH + 1, 5000, 100_000]) {
    it(`refuses meta ${depth} levels deep with INVALID_ARGUMENT, without recursing`, () => {
      expect(() => assertMetaDepth(nested(depth)))
        .to.throw()
        .that.deep.includes({ code: 'INVALID_ARGUMENT', details: { field: 'meta', max_depth: MAX_META_DEPTH } });
    });
  }
});
