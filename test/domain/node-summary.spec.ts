import { expect } from 'chai';
import type { GraphNode } from '../../domain/model.js';
import { byAge, oldestFirst } from '../../domain/node-summary.js';
import { OrderedSet } from '../../domain/ordered-set.js';

const node = (id: string, created_at: string) => ({ id, created_at }) as GraphNode;

describe('node order (oldest first, then by id)', () => {
  it('an OrderedSet keeps byAge order through adds (in place and at once) and deletes, whatever the input order', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const nodes = Array.from({ length: next() % 60 }, (_, index) => node(`T-${next() % 40}-${index}`, `2026-01-0${1 + (next() % 3)}T00:00:00.000Z`));
      const set = new OrderedSet<GraphNode>(byAge);
      const held = new Set<GraphNode>();
      for (const item of nodes) {
        if (next() % 3 === 0) set.addUnsorted(item);
        else set.add(item);
        held.add(item);
        if (next() % 4 === 0) {
          const gone = [...held][next() % held.size]!;
          set.delete(gone);
          held.delete(gone);
        }
        if (next() % 5 === 0) expect(set.inOrder(), `round ${round}`).to.deep.equal(oldestFirst([...held]));
      }
      expect(set.inOrder(), `round ${round}`).to.deep.equal(oldestFirst([...held]));
      expect(set.size).to.equal(held.size);
    }
  });
});
