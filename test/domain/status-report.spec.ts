import { nodeOf, setNode } from '../../domain/node-map.js';
import { expect } from 'chai';
import sinon from 'sinon';
import * as lifecycle from '../../domain/lifecycle.js';
import { statusReport, type StatusFilters } from '../../domain/status-report.js';
import { indexesOf } from '../../domain/project-state.js';
import { GraphFixture } from '../support/graph-fixture.js';
import { staleClaimAlertsJson } from '../../domain/alerts.js';
import type { ClaimEntry } from '../../domain/status-index.js';
import { seededRandom } from '../support/crash-file-system.js';
import { staleAlertsAsObjects } from '../support/stale-alerts.js';

const HOUR = 3_600_000;
const DEFAULTS: StatusFilters = { staleMs: 2 * HOUR, limit: 100, all: false };

/** ready R1 R2 (R2 in domain db), blocked B, backlog L, alice holds P1, bob holds P2 (in initiative other), submitted S, done D, canceled C, gates G open, GR resolved, K active, KD deprecated. */
function project(): GraphFixture {
  const fixture = new GraphFixture();
  fixture.graph.initiatives.other = { desc: '', created_at: fixture.now };
  fixture.task('R1');
  fixture.task('R2', { domain: 'db' });
  fixture.gate('G');
  fixture.gate('GR');
  fixture.task('B', { blocked_by: ['G'] });
  fixture.task('L', { specific: { backlog: true } });
  for (const id of ['P1', 'S', 'D', 'C']) fixture.task(id);
  fixture.task('P2', { initiative: 'other' });
  fixture.knowledge('K', { tags: ['x'] });
  fixture.knowledge('KD', { tags: ['x'] });
  fixture.as('alice', (d) => lifecycle.take(d, 'P1'));
  fixture.as('alice', (d) => lifecycle.take(d, 'S'));
  fixture.as('alice', (d) => lifecycle.submit(d, 'S', 'done'));
  fixture.as('alice', (d) => lifecycle.take(d, 'D'));
  fixture.as('alice', (d) => lifecycle.submit(d, 'D', 'done'));
  fixture.as('bob', (d) => lifecycle.accept(d, 'D'));
  fixture.as('orchestrator', (d) => lifecycle.cancel(d, 'C', 'no'));
  fixture.as('bob', (d) => lifecycle.resolve(d, 'GR', 'a', 'b'));
  fixture.as('bob', (d) => lifecycle.deprecateKnowledge(d, 'KD', 'old'));
  fixture.advance(HOUR);
  fixture.as('bob', (d) => lifecycle.take(d, 'P2'));
  fixture.advance(HOUR);
  return fixture;
}

const ids = (list: { id: string }[] | undefined) => (list ?? []).map((item) => item.id);

describe('domain/status-report', () => {
  it('default: summary, task and gate groups, the knowledge count, stale-claim alerts', () => {
    const fixture = project();
    const sut = statusReport(fixture.draft(null), fixture.now, DEFAULTS);
    expect(sut.summary).to.deep.equal({ ready: 2, in_progress: 2, blocked: 1, backlog: 1, submitted: 1, open_gates: 1, active_knowledge: 1 });
    expect(Object.fromEntries(Object.entries(sut.tasks).map(([group, list]) => [group, ids(list)]))).to.deep.equal({
      ready: ['R1', 'R2'],
      in_progress: ['P1', 'P2'],
      blocked: ['B'],
      backlog: ['L'],
      submitted: ['S'],
    });
    expect(ids(sut.gates.open)).to.deep.equal(['G']);
    expect(sut.knowledge_count).to.equal(1);
    expect(sut).to.not.have.property('knowledge');
    expect(sut.alerts).to.deep.equal([
      {
        kind: 'STALE_CLAIM',
        node: 'P1',
        claimed_by: 'alice',
        claimed_at: '2030-01-01T00:00:00.000Z',
        age_ms: 2 * HOUR,
        message: `P1 has been claimed by alice for ${2 * HOUR} ms without being submitted or released`,
      },
    ]);
    expect(sut.tasks.in_progress![0]).to.deep.include({ id: 'P1', type: 'task', status: 'in_progress', claim: { by: 'alice', at: '2030-01-01T00:00:00.000Z', token: 14 } });
  });

  it('--all adds done, archived, canceled, resolved, superseded, deprecated and dumps knowledge instead of counting it', () => {
    const fixture = project();
    const sut = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, all: true });
    expect(ids(sut.tasks.done)).to.deep.equal(['D']);
    expect(ids(sut.tasks.canceled)).to.deep.equal(['C']);
    expect(sut.tasks).to.have.property('archived');
    expect(Object.keys(sut.gates)).to.deep.equal(['open', 'resolved', 'superseded', 'canceled']);
    expect(ids(sut.gates.resolved)).to.deep.equal(['GR']);
    expect(ids(sut.knowledge!.active)).to.deep.equal(['K']);
    expect(ids(sut.knowledge!.deprecated)).to.deep.equal(['KD']);
    expect(sut).to.not.have.property('knowledge_count');
  });

  it('rule 1: summary is present whatever the filters', () => {
    const fixture = project();
    const sut = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, kind: 'knowledge', status: 'deprecated' });
    expect(sut.summary).to.deep.equal({ ready: 0, in_progress: 0, blocked: 0, backlog: 0, submitted: 0, open_gates: 0, active_knowledge: 0 });
  });

  it('rule 2: in_progress is global, --claimed-by narrows it; --as is no filter', () => {
    const fixture = project();
    expect(ids(statusReport(fixture.draft('bob'), fixture.now, DEFAULTS).tasks.in_progress)).to.deep.equal(['P1', 'P2']);
    expect(ids(statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, claimed_by: 'bob' }).tasks.in_progress)).to.deep.equal(['P2']);
  });

  it('rule 3: --status filters every group, and only in_progress surfaces the in_progress group', () => {
    const fixture = project();
    const ready = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, status: 'ready' });
    expect(ids(ready.tasks.ready)).to.deep.equal(['R1', 'R2']);
    expect(ready.tasks.in_progress).to.deep.equal([]);
    expect(ready.gates.open).to.deep.equal([]);
    expect(ready.knowledge_count).to.equal(0);
    const working = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, status: 'in_progress' });
    expect(ids(working.tasks.in_progress)).to.deep.equal(['P1', 'P2']);
    expect(working.tasks.ready).to.deep.equal([]);
    expect(ids(statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, status: 'open' }).gates.open)).to.deep.equal(['G']);
  });

  it('rule 4: stale alerts are global (not narrowed by --initiative, --status ...) and narrowed by --claimed-by', () => {
    const fixture = project();
    const alerts = (filters: Partial<StatusFilters>) => statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, staleMs: HOUR, ...filters }).alerts.map((a) => a.node);
    expect(alerts({})).to.deep.equal(['P1', 'P2']);
    expect(alerts({ initiative: 'other', status: 'ready', kind: 'gate' })).to.deep.equal(['P1', 'P2']);
    expect(alerts({ claimed_by: 'alice' })).to.deep.equal(['P1']);
  });

  it('alerts only on tasks in progress: a claim left on a task in another status (an imported file) is none', () => {
    const fixture = project();
    const done = nodeOf(fixture.graph, 'D')!;
    setNode(fixture.graph, 'D', { ...done, claim: { by: 'alice', at: '2000-01-01T00:00:00.000Z' } } as typeof done);
    indexesOf(fixture.graph).nodeChanged('D');
    const alerts = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, staleMs: 0 }).alerts.map((alert) => alert.node);
    expect(alerts).to.deep.equal(['P1', 'P2']);
  });

  it('--stale-ms: a claim is stale once its age reaches the threshold', () => {
    const fixture = project();
    const alerts = (staleMs: number) => statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, staleMs }).alerts.map((a) => a.node);
    expect(alerts(2 * HOUR + 1)).to.deep.equal([]);
    expect(alerts(2 * HOUR)).to.deep.equal(['P1']);
    expect(alerts(0)).to.deep.equal(['P1', 'P2']);
  });

  it('--initiative, --domain and --kind pick the nodes of every group', () => {
    const fixture = project();
    expect(ids(statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, initiative: 'other' }).tasks.in_progress)).to.deep.equal(['P2']);
    const db = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, domain: 'db' });
    expect(db.summary).to.deep.include({ ready: 1, in_progress: 0, open_gates: 0 });
    const gates = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, kind: 'gate' });
    expect(gates.summary).to.deep.include({ ready: 0, open_gates: 1, active_knowledge: 0 });
  });

  it('--limit caps each list; summary still counts every match', () => {
    const fixture = project();
    const sut = statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, limit: 1 });
    expect(ids(sut.tasks.ready)).to.deep.equal(['R1']);
    expect(sut.summary.ready).to.equal(2);
  });

  it('an unknown --status is INVALID_ARGUMENT', () => {
    const fixture = project();
    expect(() => statusReport(fixture.draft(null), fixture.now, { ...DEFAULTS, status: 'doing' })).to.throw().with.property('code', 'INVALID_ARGUMENT');
  });
});

describe('domain/alerts: stale-claim alerts written as JSON text', () => {
  const NOW_MILLIS = Date.parse('2026-06-01T00:00:00.000Z');
  const asObjects = (claims: readonly ClaimEntry[], cutoff: string, holder: string | undefined) => staleAlertsAsObjects(claims, cutoff, holder, NOW_MILLIS);

  it('prints the same bytes as the alerts made as objects, for names JSON leaves as they are, any age, cutoff and holder', () => {
    const random = seededRandom(28);
    // Names JSON writes as they are (no quote, backslash or control character), non-ASCII among them.
    const agents = ['a', 'alice', 'bøb', 'δ-agent', '😀 team', 'x y'];
    for (let round = 0; round < 300; round++) {
      const times = Array.from({ length: Math.floor(random() * 12) }, () => new Date(NOW_MILLIS - Math.floor(random() * 1e11)).toISOString()).sort();
      // A claim time that does not parse (month 13) but sorts among the others: JSON gives its age null, the message NaN.
      if (times.length > 0 && random() < 0.2) times[Math.floor(random() * times.length)] = `${times[0]!.slice(0, 5)}13-01T00:00:00.000Z`;
      times.sort();
      const claims: ClaimEntry[] = times.map((at, index) => [`T-${index}`, agents[Math.floor(random() * agents.length)]!, at]);
      const cutoff = times[Math.floor(random() * (times.length + 1))] ?? '9999';
      const holder = random() < 0.3 ? agents[Math.floor(random() * agents.length)] : undefined;
      expect(staleClaimAlertsJson(claims, cutoff, NOW_MILLIS, holder)).to.equal(asObjects(claims, cutoff, holder));
    }
  });

  it('takes each claim time in ms from the entry that holds it, parsing no date per claim, and prints the same bytes', () => {
    const times = ['2026-01-05T09:01:00.000Z', '2026-02-01T00:00:00.000Z', '2026-13-01T00:00:00.000Z'];
    const parsed: ClaimEntry[] = times.map((at, index) => [`T-${index}`, 'a', at]);
    const saved: ClaimEntry[] = times.map((at, index) => [`T-${index}`, 'a', at, Number.isNaN(Date.parse(at)) ? null : Date.parse(at)]);
    const expected = asObjects(parsed, '9999', undefined);
    const parse = sinon.spy(Date, 'parse');
    const text = staleClaimAlertsJson(saved, '9999', NOW_MILLIS, undefined);
    // Only the time that does not parse (saved as null) is parsed, to say so as JSON.stringify would.
    expect(parse.callCount).to.equal(1);
    parse.restore();
    expect(text).to.equal(expected);
  });

  it('writes an alert whose age does not parse as JSON.stringify does: age_ms null, NaN in the message', () => {
    const claims: ClaimEntry[] = [['T-1', 'a', '2026-13-01T00:00:00.000Z']];
    const text = staleClaimAlertsJson(claims, '9999', NOW_MILLIS, undefined);
    expect(text).to.equal(asObjects(claims, '9999', undefined));
    expect(JSON.parse(text)[0]).to.include({ age_ms: null, message: 'T-1 has been claimed by a for NaN ms without being submitted or released' });
  });
});
