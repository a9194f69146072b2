import { expect } from 'chai';
import { staleClaimAlertsJson } from '../../domain/alerts.js';
import { timestampBefore } from '../../domain/clock.js';
import { isPlainJsonString } from '../../domain/json-text.js';
import type { ClaimEntry } from '../../domain/status-index.js';
import { claimAlertsRenderer } from '../../adapters/claim-alerts-wasm.js';
import { seededRandom } from '../support/crash-file-system.js';
import { staleAlertsAsObjects } from '../support/stale-alerts.js';

type Entry = [string, string, string, number | null];

describe('adapters/claim-alerts-wasm: stale-claim alerts written from a claims section', () => {
  const render = claimAlertsRenderer()!;
  const NOW = '2026-06-01T00:00:00.000Z';
  const NOW_MILLIS = Date.parse(NOW);
  /** A `claims` section as a checkpoint holds it (heads-line.ts): `[id, by, at, ms]` entries, ms null where the time does not parse. */
  const sectionOf = (entries: readonly Entry[]) => Buffer.from(JSON.stringify(entries));
  const entryOf = (id: string, by: string, at: string): Entry => [id, by, at, Number.isNaN(Date.parse(at)) ? null : Date.parse(at)];
  const asObjects = (entries: readonly Entry[], cutoff: string, holder: string | undefined) => staleAlertsAsObjects(entries, cutoff, holder, NOW_MILLIS);
  const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString('utf8'));

  it('writes the bytes JSON.stringify writes of the alerts, for random claims, cutoffs and holders; where it does not, it says so (null)', () => {
    const random = seededRandom(2811);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    // Names JSON leaves as they are (non-ASCII among them), and names it escapes (a quote, a backslash, a control character, half a surrogate pair).
    const plain = ['a', 'alice', 'bøb', 'δ-agent', '😀 team', 'x y', 'agent-12345678901234567890'];
    const escaped = ['q"uote', 'back\\slash', 'tab\there', '\ud800half'];
    let rendered = 0;
    for (let round = 0; round < 400; round++) {
      // Mostly a few claims, now and then none, one, or more than one module writes (400 a module).
      const count = round % 50 === 0 ? 900 + Math.floor(random() * 400) : round % 7 === 0 ? Math.floor(random() * 2) : Math.floor(random() * 15);
      const escapes = random() < 0.15;
      const times = Array.from({ length: count }, () => {
        const kind = random();
        // Times before 1970 (ms below zero), far off, without milliseconds (parsed, but compared as text), or not a date at all.
        if (kind < 0.05) return new Date(-Math.floor(random() * 1e12)).toISOString();
        if (kind < 0.08) return '2026-01-05T09:01:00Z';
        if (kind < 0.1 && round % 3 === 0) return '2026-13-01T00:00:00.000Z';
        return new Date(NOW_MILLIS - Math.floor(random() * 1e11) + 1e10).toISOString();
      }).sort();
      const entries = times.map((at, index) => entryOf(escapes && random() < 0.3 ? `T-${pick(escaped)}` : `T-${index}`, escapes && random() < 0.3 ? pick(escaped) : pick(plain), at));
      const cutoff = pick([...times, '9999', '', '2026', timestampBefore(NOW, 0), timestampBefore(NOW, 2 * 3_600_000), timestampBefore(NOW, -3_600_000)]);
      const holder = random() < 0.3 ? pick([...plain, 'nobody', ...escaped]) : undefined;
      const written = text(render(sectionOf(entries), cutoff, NOW_MILLIS, holder));
      const expected = asObjects(entries, cutoff, holder);
      const writable = entries.every(([id, by, at, ms]) => isPlainJsonString(id) && isPlainJsonString(by) && isPlainJsonString(at) && ms !== null) && (holder === undefined || isPlainJsonString(holder));
      if (writable) expect(written, `round ${round}`).to.equal(expected);
      else if (written !== null) expect(written, `round ${round}`).to.equal(expected);
      if (written !== null) rendered++;
      // The same bytes as the alerts written from the parsed entries, where those strings need no escape.
      if (written !== null) expect(written).to.equal(staleClaimAlertsJson(entries as ClaimEntry[], cutoff, NOW_MILLIS, holder));
    }
    expect(rendered).to.be.greaterThan(300);
  });

  it('writes none of no claims, and one alert of one claim', () => {
    expect(text(render(sectionOf([]), '9999', NOW_MILLIS, undefined))).to.equal('[]');
    const one = [entryOf('T-1', 'alice', '2026-01-05T09:01:00.000Z')];
    expect(text(render(sectionOf(one), '9999', NOW_MILLIS, undefined))).to.equal(asObjects(one, '9999', undefined));
    expect(text(render(sectionOf(one), '2026', NOW_MILLIS, undefined))).to.equal('[]');
    expect(text(render(sectionOf(one), '9999', NOW_MILLIS, 'bob'))).to.equal('[]');
    expect(text(render(sectionOf(one), '9999', NOW_MILLIS, 'alice'))).to.equal(asObjects(one, '9999', undefined));
  });

  it('writes nothing (null, for the caller to parse the entries) of sections it does not take as written', () => {
    const at = '2026-01-05T09:01:00.000Z';
    const cases = [
      // Entries of three strings, as checkpoints before the claim time in ms held them; whole heads, as before that.
      JSON.stringify([['T-1', 'a', at]]),
      JSON.stringify([['T-1', Date.parse(at), 'a', at, { by: 'a', at }, null, null]]),
      // A time that does not parse (ms null), a name JSON escapes, and damage a checksum would have caught.
      JSON.stringify([['T-1', 'a', '2026-13-01T00:00:00.000Z', null]]),
      JSON.stringify([['T-"1"', 'a', at, Date.parse(at)]]),
      `[["T-1","a","${at}",${Date.parse(at)}]`,
      `[["T-1","a","${at}",${Date.parse(at)}]]x`,
      `[["T-1","a","${at}",${Date.parse(at)}],]`,
      `[["T-1","a","${at}",1e12]]`,
      `[["T-1","a","${at}",99999999999999999]]`,
      `{"T-1":1}`,
      '',
    ];
    for (const section of cases) expect(render(Buffer.from(section), '9999', NOW_MILLIS, undefined), section).to.equal(null);
  });
});
