import { expect } from 'chai';
import type { GraphNode } from '../../domain/model.js';
import { oldest, oldestFirst } from '../../domain/node-summary.js';

const node = (id: string, created_at: string) => ({ id, created_at }) as GraphNode;

describe('node order (oldest first, then by id)', () => {
  it('oldest(nodes, limit) is the first `limit` of the full ordering, whatever the input order', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const nodes = Array.from({ length: next() % 60 }, (_, index) => node(`T-${next() % 40}-${index}`, `2026-01-0${1 + (next() % 3)}T00:00:00.000Z`));
      for (const limit of [1, 5, 100]) {
        expect(oldest(nodes, limit).map((n) => n.id), `${round}/${limit}`).to.deep.equal(oldestFirst([...nodes]).slice(0, limit).map((n) => n.id));
      }
    }
  });
});
