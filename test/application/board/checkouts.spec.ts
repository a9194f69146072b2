import { expect } from 'chai';
import { CHECKOUTS_KEPT, checkoutLabelProblem, CheckoutsSeen, parseCheckouts, renderCheckouts, withCheckoutSeen } from '../../../application/board/checkouts.js';
import type { SeenCheckouts } from '../../../application/ports/checkout-record.js';

const AT = '2026-11-25T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(AT) + ms).toISOString();

describe('the checkouts a board lists under each project', () => {
  it('a checkout seen again moves first; its time is written again only a minute on; the oldest go past the bound', () => {
    const record: SeenCheckouts = {};
    const see = (label: string, at: string) => {
      const next = withCheckoutSeen(record.p ?? [], label, at);
      record.p = next.entries;
      return next.written;
    };
    expect(see('a:/x', AT)).to.equal(true);
    expect(see('b:/y', later(1000))).to.equal(true);
    expect(see('a:/x', later(2000)), 'seen within the minute').to.equal(false);
    expect(record.p!.map((entry) => [entry.label, entry.last_seen])).to.deep.equal([['a:/x', AT], ['b:/y', later(1000)]]);
    expect(see('a:/x', later(61_000))).to.equal(true);
    expect(record.p![0]).to.deep.equal({ label: 'a:/x', last_seen: later(61_000) });
    for (let index = 0; index < CHECKOUTS_KEPT; index++) see(`host:/c${index}`, later(70_000 + index));
    expect(record.p!.length).to.equal(CHECKOUTS_KEPT);
    expect(record.p!.map((entry) => entry.label)).not.to.include('a:/x');
  });

  it('a label is 1-512 characters without control characters', () => {
    expect(checkoutLabelProblem('laptop:/home/ann/shop')).to.equal(null);
    expect(checkoutLabelProblem('')).to.be.a('string');
    expect(checkoutLabelProblem('x'.repeat(513))).to.be.a('string');
    expect(checkoutLabelProblem('a\nb')).to.be.a('string');
  });

  it('reads back what it writes, keeps only well-formed entries, and reads a foreign file as none', () => {
    const record = { p: [{ label: 'a:/x', last_seen: AT }] };
    expect(parseCheckouts(renderCheckouts(record))).to.deep.equal(record);
    expect(parseCheckouts(JSON.stringify({ version: 1, projects: { p: [{ label: 'a:/x', last_seen: AT }, { label: 1 }, { label: 'b', last_seen: 'never' }] } }))).to.deep.equal(record);
    expect(parseCheckouts('not json')).to.equal(null);
    expect(parseCheckouts(JSON.stringify({ version: 2, projects: {} }))).to.equal(null);
  });

  it('a server writes what it sees off the request path, one write at a time, and logs a failed write', async () => {
    const saved: SeenCheckouts[] = [];
    let fail = false;
    const store = {
      load: async () => ({}),
      // Taken as it is when the write starts, as the file store renders it.
      save: async (record: SeenCheckouts) => {
        const copy = structuredClone(record);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) throw new Error('disk full');
        saved.push(copy);
      },
    };
    let now = AT;
    const logged: string[] = [];
    const seen = await CheckoutsSeen.open(store, { now: () => now }, (line) => logged.push(line));
    seen.seen('p', 'a:/x');
    seen.seen('p', 'b:/y');
    seen.seen('p', 'a:/x');
    expect(seen.all().p!.map((entry) => entry.label)).to.deep.equal(['a:/x', 'b:/y']);
    await seen.settled();
    expect(saved.length, 'the second write carries both').to.be.at.most(2);
    expect(saved.at(-1)).to.deep.equal(seen.all());
    const writes = saved.length;
    seen.seen('p', 'b:/y');
    seen.seen('p', 'b:/y');
    await seen.settled();
    expect(saved.length, 'seen again within the minute: moved first, not written').to.equal(writes);
    expect(seen.all().p!.map((entry) => entry.label)).to.deep.equal(['b:/y', 'a:/x']);
    fail = true;
    now = later(120_000);
    seen.seen('q', 'c:/z');
    await seen.settled();
    expect(logged).to.have.length(1);
    expect(logged[0]).to.contain('disk full');
    expect(seen.all().q, 'kept in memory').to.have.length(1);
  });
});
