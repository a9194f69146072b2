import { expect } from 'chai';
import { historyOf as sut, mentions } from '../../domain/history.js';
import type { LogEntry } from '../../domain/model.js';

const entry = (revision: number, node: string | null, note?: string): LogEntry => ({
  revision,
  at: '2030-01-01T00:00:00.000Z',
  by: 'a',
  op: 'x',
  node,
  ...(note === undefined ? {} : { note }),
});

describe('domain/history', () => {
  const log = [entry(1, 'T-1'), entry(2, 'T-2', 'after T-1.'), entry(3, 'T-10', 'T-10 and XT-1'), entry(4, 'T-3', 'see (T-1), thanks'), entry(5, 'T-1')];

  it('lists entries of the node and entries whose note names it as a whole token, in log order', () => {
    expect(sut(log, 'T-1', 100)).to.deep.equal({ id: 'T-1', entries: [log[0], log[1], log[3], log[4]] });
  });

  it('--limit keeps the most recent entries', () => {
    expect(sut(log, 'T-1', 2).entries.map((e) => e.revision)).to.deep.equal([4, 5]);
  });

  it('whole tokens only: T-1 is not in T-10, XT-1 or T-1a', () => {
    expect(['T-1', 'ok T-1:', 'T-10', 'XT-1', 'T-1a', 'T-1.5'].map((text) => mentions(text, 'T-1'))).to.deep.equal([true, true, false, false, false, false]);
  });
});
