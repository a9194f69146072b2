import { allNodes, edgesOf, nodeIds, nodeOf } from '../../domain/node-map.js';
import { expect } from 'chai';
import { applyChangeSet } from '../../domain/change-set.js';
import { GraphDraft } from '../../domain/draft.js';
import { GraphIndex } from '../../domain/graph-index.js';
import { accept, addNote, cancel, deprecateKnowledge, reject, release, reopen, resolve, revise, submit, take } from '../../domain/lifecycle.js';
import { isTask, nodeType, type Graph, type KnowledgeScope, type NodeId } from '../../domain/model.js';
import { oldestFirst } from '../../domain/node-summary.js';
import { indexesOf, projectState } from '../../domain/project-state.js';
import type { NodeHead, StatusIndex } from '../../domain/status-index.js';
import { STATUS_VALUES } from '../../domain/status-report.js';
import { derivedStatus } from '../../domain/status.js';
import { NOW, addGate, addKnowledge, addTask, newDraft } from '../support/graphs.js';

/** The status index of a project state (a draft's graph). */
function statusesOf(graph: Graph): StatusIndex {
  return indexesOf(graph).statuses;
}

/** A small deterministic PRNG, so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Every node's derived status, computed afresh from the graph: what the kept index must agree with. */
function freshStatuses(graph: Graph): Record<NodeId, string> {
  const copy = structuredClone(graph);
  const index = new GraphIndex(copy);
  return Object.fromEntries(allNodes(copy).map((node) => [node.id, derivedStatus(copy, index, node)]));
}

/**
 * Every node's status as the kept index has it: from its heads, which must agree with its buckets
 * (each node in exactly the bucket of its type and status) and its claimed tasks.
 */
function keptStatuses(graph: Graph): Record<NodeId, string> {
  const index = statusesOf(graph);
  const fromHeads = Object.fromEntries([...index.all().values()].map((head) => [head.id, head.status]));
  const fromBuckets: Record<NodeId, string> = {};
  for (const type of ['task', 'gate', 'knowledge'] as const) {
    for (const status of STATUS_VALUES) {
      const bucket = index.bucket(type, status).inOrder();
      expect(bucket, `${type} ${status} oldest first`).to.deep.equal(oldestFirst([...bucket]));
      for (const head of bucket) {
        expect(fromBuckets, `${head.id} in two buckets`).not.to.have.property(head.id);
        expect(nodeType(nodeOf(graph, head.id)!), `${head.id}'s bucket type`).to.equal(type);
        fromBuckets[head.id] = status;
      }
    }
  }
  expect(fromBuckets, 'the buckets hold what the heads say').to.deep.equal(fromHeads);
  const claimed = allNodes(graph).filter((node) => isTask(node) && node.claim !== null && fromHeads[node.id] === 'in_progress').map((node) => node.id);
  const claims = index.claimed().inOrder();
  expect(claims.map((head) => head.id).sort(), 'the claimed tasks').to.deep.equal(claimed.sort());
  const byClaim = [...claims].sort((a, b) => (a.claim!.at !== b.claim!.at ? (a.claim!.at < b.claim!.at ? -1 : 1) : a.id < b.id ? -1 : 1));
  expect(claims, 'claims, longest-held first').to.deep.equal(byClaim);
  return fromHeads;
}

/** A knowledge scope naming, or not, a node, a tag, a domain and the initiative. */
function randomScope(next: () => number, ids: string[]): KnowledgeScope {
  const maybe = <T>(value: T): T[] => (next() < 0.4 ? [value] : []);
  return { node_ids: ids.length > 0 ? maybe(ids[Math.floor(next() * ids.length)]!) : [], tags: maybe('a'), domains: maybe('any'), initiatives: maybe('core') };
}

/** What knowledgeScoping must find for each node: the knowledge whose scope names it, found by walking them all. */
function expectScopesIndexed(graph: Graph): void {
  const index = statusesOf(graph);
  const knowledge = [...index.knowledge().values()];
  for (const node of allNodes(graph)) {
    const names = (scope: KnowledgeScope) =>
      scope.node_ids.includes(node.id) || node.tags.some((tag) => scope.tags.includes(tag)) || (node.domain !== null && scope.domains.includes(node.domain)) || scope.initiatives.includes(node.initiative);
    const expected = knowledge.filter((head) => names(head.scope!)).map((head) => head.id);
    expect([...index.knowledgeScoping(node)].map((head) => head.id).sort(), `knowledge scoping ${node.id}`).to.deep.equal(expected.sort());
  }
}

/** One random change through the domain's own rules; a refused one changes nothing. */
function randomStep(draft: GraphDraft, next: () => number, step: number): void {
  const ids = nodeIds(draft.graph);
  const pick = () => ids[Math.floor(next() * ids.length)]!;
  const roll = next();
  try {
    if (roll < 0.25) addTask(draft, `T${step}`, { tags: next() < 0.5 ? ['a'] : [] }, { blocked_by: ids.filter(() => next() < 0.1) });
    else if (roll < 0.35) addGate(draft, `G${step}`, {}, next() < 0.4 ? { supersedes: pick() } : { blocked_by: [pick()] });
    else if (roll < 0.4) addKnowledge(draft, `K${step}`, { scope: randomScope(next, ids) });
    else if (roll < 0.5) draft.addEdge({ from: pick(), to: pick(), type: 'BLOCKS' });
    else if (roll < 0.6) draft.removeEdge(edgesOf(draft.graph)[Math.floor(next() * edgesOf(draft.graph).length)] ?? { from: 'x', to: 'y', type: 'BLOCKS' });
    else if (roll < 0.7) draft.actingAs('alice', () => take(draft, pick()));
    else if (roll < 0.8) draft.actingAs('bob', () => accept(draft, pick()));
    else if (roll < 0.9) resolve(draft, pick(), 'yes', 'because');
    else if (roll < 0.93) cancel(draft, pick(), 'no longer');
    else if (roll < 0.95) reopen(draft, pick(), 'again');
    else if (roll < 0.975) deprecateKnowledge(draft, pick(), 'outdated');
    else {
      const node = nodeOf(draft.graph, pick())!;
      if (node.kind === 'knowledge') revise(draft, node, { scope: randomScope(next, ids) });
    }
  } catch {
    // A rule refused it (a cycle, a wrong status): nothing changed.
  }
}

describe('StatusIndex (status buckets kept per change)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`agrees with a fresh derivation after every change of random sequence ${seed}, reads interleaved`, () => {
      const next = random(seed);
      const draft = newDraft('orchestrator');
      statusesOf(draft.graph).all();
      for (let step = 0; step < 120; step++) {
        randomStep(draft, next, step);
        if (next() < 0.3) expect(keptStatuses(draft.graph), `step ${step}`).to.deep.equal(freshStatuses(draft.graph));
        if (next() < 0.2) expectScopesIndexed(draft.graph);
      }
      expectScopesIndexed(draft.graph);
      expect(keptStatuses(draft.graph)).to.deep.equal(freshStatuses(draft.graph));
      const knowledge = allNodes(draft.graph).filter((node) => node.kind === 'knowledge').map((node) => node.id);
      expect([...statusesOf(draft.graph).knowledge().keys()].sort()).to.deep.equal(knowledge.sort());
    });
  }

  it('stays true when a draft is rolled back, read or not in between', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const base = newDraft('orchestrator');
      for (let step = 0; step < 60; step++) randomStep(base, next, step);
      statusesOf(base.graph).all();
      const before = freshStatuses(base.graph);
      const draft = new GraphDraft(base.graph, NOW, 'orchestrator');
      for (let step = 100; step < 130; step++) {
        randomStep(draft, next, step);
        if (next() < 0.3) statusesOf(draft.graph).all();
      }
      draft.rollback();
      expect(keptStatuses(base.graph), `seed ${seed}`).to.deep.equal(before);
    }
  });

  it('seeded from saved heads, is kept true by replayed change sets', () => {
    const next = random(7);
    const draft = newDraft('orchestrator');
    for (let step = 0; step < 60; step++) randomStep(draft, next, step);
    const saved: Graph = structuredClone(draft.graph);
    const heads: NodeHead[] = [...statusesOf(draft.graph).all().values()].map((head) => structuredClone(head));
    const later = new GraphDraft(draft.graph, NOW, 'orchestrator');
    for (let step = 200; step < 260; step++) randomStep(later, next, step);
    const changes = later.changes()!;
    const seeded = projectState(saved, { heads: () => heads });
    applyChangeSet(seeded, structuredClone(changes));
    expect(keptStatuses(seeded)).to.deep.equal(freshStatuses(draft.graph));
  });

  it('carries what status filters and orders by, and a knowledge scope', () => {
    const draft = newDraft('orchestrator');
    addTask(draft, 'T1');
    addKnowledge(draft, 'K1');
    const heads = statusesOf(draft.graph).all();
    expect(heads.get('T1')).to.deep.include({ type: 'task', status: 'ready', initiative: 'core', claim: null, scope: null, created_at: NOW });
    const k1 = nodeOf(draft.graph, 'K1')!;
    expect(heads.get('K1')!.scope).to.deep.equal(k1.kind === 'knowledge' ? k1.scope : null);
  });
});

/** One random change as a ledger tail holds them: the work on a task besides `randomStep`'s (a submit, a reject, a release, a note, a retitle). */
function tailStep(draft: GraphDraft, next: () => number, step: number): void {
  const ids = nodeIds(draft.graph);
  const pick = () => ids[Math.floor(next() * ids.length)]!;
  const roll = next();
  try {
    if (roll < 0.1) draft.actingAs('alice', () => submit(draft, pick(), 'done'));
    else if (roll < 0.15) draft.actingAs('bob', () => reject(draft, pick(), 'again'));
    else if (roll < 0.2) draft.actingAs('alice', () => release(draft, pick()));
    else if (roll < 0.25) addNote(draft, pick(), 'a note');
    else if (roll < 0.3) revise(draft, nodeOf(draft.graph, pick())!, { title: `retitled ${step}` });
    else randomStep(draft, next, step);
  } catch {
    // A rule refused it: nothing changed.
  }
}

describe('status groups over saved buckets', () => {
  /** A state seeded from the heads of a draft of `count` tasks, with those heads also saved a bucket at a time. */
  function seeded(count: number) {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < count; at++) addTask(draft, `T${at}`);
    return savedOf(draft);
  }

  /** A state seeded from the heads of `draft`'s graph, with those heads also saved a bucket at a time. */
  function savedOf(draft: GraphDraft) {
    const heads = [...statusesOf(draft.graph).all().values()].map((head) => structuredClone(head));
    const groups = new Map<string, NodeHead[]>();
    const reads: Record<string, number> = {};
    for (const head of heads) groups.set(`${head.type} ${head.status}`, [...(groups.get(`${head.type} ${head.status}`) ?? []), head]);
    for (const [key, list] of groups) groups.set(key, oldestFirst(list));
    const buckets = {
      counts: new Map([...groups].map(([key, list]) => [key, list.length])),
      page: (key: string, page: number) => {
        reads[`${key} ${page}`] = (reads[`${key} ${page}`] ?? 0) + 1;
        return (groups.get(key) ?? []).slice(page * 200, (page + 1) * 200);
      },
      bucketOf: (id: string) => {
        const head = heads.find((candidate) => candidate.id === id);
        return head && `${head.type} ${head.status}`;
      },
      claimed: () => [],
    };
    const state = projectState(structuredClone({ ...draft.graph }), { heads: { all: () => heads, knowledge: () => [], buckets: () => buckets } });
    return { state, statuses: statusesOf(state), pageReads: () => reads };
  }

  it('answers a group from the saved count and first page, deriving only the marked heads', () => {
    const { state, statuses } = seeded(300);
    const work = new GraphDraft(state, NOW, 'bob');
    take(work, 'T7');
    expect(statuses.statusGroup('task', 'ready').count).to.equal(299);
    expect(statuses.statusGroup('task', 'in_progress').first(20).map((head) => head.id)).to.deep.equal(['T7']);
    expect(statuses.derivations).to.equal(1);
  });

  it('in a long-lived process, a read derives only the heads marked since the read before, and reads each saved page once', () => {
    const { state, statuses, pageReads } = seeded(300);
    const perRead: number[] = [];
    for (let at = 0; at < 100; at++) {
      const before = statuses.derivations;
      take(new GraphDraft(state, NOW, 'bob'), `T${at}`);
      expect(statuses.statusGroup('task', 'ready').count).to.equal(299 - at);
      const stillReady = Array.from({ length: 300 - at - 1 }, (_, index) => `T${at + 1 + index}`).sort();
      expect(statuses.statusGroup('task', 'ready').first(5).map((head) => head.id)).to.deep.equal(stillReady.slice(0, 5));
      expect(statuses.statusGroup('task', 'in_progress').first(100)).to.have.length(at + 1);
      perRead.push(statuses.derivations - before);
    }
    expect(perRead, 'heads derived at each status').to.deep.equal(perRead.map(() => 1));
    expect(pageReads(), 'saved pages read').to.deep.equal({ 'task ready 0': 1, 'task in_progress 0': 1 });
  });

  it('a group taken over the saved buckets lists no stale head when every head is read before its first heads are (status --claimed-by)', () => {
    const { state, statuses } = seeded(300);
    cancel(new GraphDraft(state, NOW, 'orchestrator'), 'T0', 'dropped');
    const ready = statuses.statusGroup('task', 'ready');
    // `--claimed-by` reads the in-progress bucket whole: every head is read from then on.
    statuses.bucket('task', 'in_progress');
    expect(ready.count).to.equal(299);
    expect(ready.first(2).map((head) => head.id)).to.deep.equal(['T1', 'T10']);
  });

  it('derives again only a marked node, not what it blocks, when it satisfies a BLOCKS edge as it did (a retitle, a note, a take, a submit)', () => {
    const draft = newDraft('orchestrator');
    addTask(draft, 'T-blocker');
    for (let at = 0; at < 50; at++) addTask(draft, `T-after${at}`, {}, { blocked_by: ['T-blocker'] });
    const { state, statuses } = savedOf(draft);
    const derivedBy = (change: (work: GraphDraft) => void) => {
      const before = statuses.derivations;
      change(new GraphDraft(state, NOW, 'bob'));
      expect(statuses.statusGroup('task', 'blocked').count).to.equal(50);
      return statuses.derivations - before;
    };
    expect(derivedBy((work) => revise(work, nodeOf(work.graph, 'T-blocker')!, { title: 'retitled' })), 'a retitle').to.equal(1);
    expect(derivedBy((work) => addNote(work, 'T-blocker', 'a note')), 'a note').to.equal(1);
    expect(derivedBy((work) => take(work, 'T-blocker')), 'a take').to.equal(1);
    expect(derivedBy((work) => submit(work, 'T-blocker', 'done')), 'a submit').to.equal(1);
    // Done, it no longer blocks: what it blocked is derived again, and is ready.
    const before = statuses.derivations;
    accept(new GraphDraft(state, NOW, 'carol'), 'T-blocker');
    expect(statuses.statusGroup('task', 'ready').count).to.equal(50);
    expect(statuses.derivations - before).to.equal(51);
  });

  it(`agrees with a fresh derivation after every change of random sequences, group by group, over the saved buckets`, () => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = random(seed);
      const base = newDraft('orchestrator');
      for (let step = 0; step < 60; step++) randomStep(base, next, step);
      const { state, statuses } = savedOf(base);
      for (let step = 100; step < 160; step++) {
        const draft = new GraphDraft(state, NOW, 'orchestrator');
        tailStep(draft, next, step);
        // Some drafts fail after their change and are rolled back: an added node goes, a changed one comes back.
        if (next() < 0.2) draft.rollback();
        if (next() < 0.5) continue;
        const fresh = freshStatuses(state);
        for (const type of ['task', 'gate', 'knowledge'] as const) {
          for (const status of STATUS_VALUES) {
            const expected = Object.keys(fresh).filter((id) => fresh[id] === status && nodeType(nodeOf(state, id)!) === type);
            const group = statuses.statusGroup(type, status);
            expect(group.count, `seed ${seed} step ${step}: ${type} ${status}`).to.equal(expected.length);
            expect(group.first(1000).map((head) => head.id).sort(), `seed ${seed} step ${step}: ${type} ${status}`).to.deep.equal(expected.sort());
          }
        }
      }
    }
  });

  it('past 512 marked nodes, reads every head once and keeps them, instead of deriving the marks at every read', () => {
    const { state, statuses } = seeded(600);
    for (let at = 0; at < 600; at++) indexesOf(state).nodeChanged(`T${at}`);
    expect(statuses.statusGroup('task', 'ready').count).to.equal(600);
    const derived = statuses.derivations;
    indexesOf(state).nodeChanged('T1');
    expect(statuses.statusGroup('task', 'ready').count).to.equal(600);
    expect(statuses.derivations - derived).to.equal(1);
  });
});
