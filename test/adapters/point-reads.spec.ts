import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sinon from 'sinon';
import { memberLine } from '../../adapters/checkpoint-file.js';
import { stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { crc32 } from '../../adapters/crc32.js';
import { SavedEndpoints } from '../../adapters/edge-endpoints.js';
import { HEADS_DIRECTORY_START, headsLine, SavedHeadsLine } from '../../adapters/heads-line.js';
import { trigramBits } from '../../adapters/knowledge-trigrams.js';
import { CheckpointNodes } from '../../adapters/lazy-nodes.js';
import { FsProjectStoreFactory, type FsProjectStore } from '../../adapters/fs-project-store.js';
import { nodeContext } from '../../domain/context.js';
import { GraphDraft } from '../../domain/draft.js';
import { accept, addNote, deprecateKnowledge, resolve, submit, take } from '../../domain/lifecycle.js';
import { updateNode } from '../../domain/update.js';
import type { Graph } from '../../domain/model.js';
import { deleteNode, nodeCount, nodeIds, nodeOf, plainGraph, setNode } from '../../domain/node-map.js';
import type { ProjectState } from '../../domain/project-state.js';
import { projectState } from '../../domain/project-state.js';
import { searchKnowledge } from '../../domain/search.js';
import { statusReport } from '../../domain/status-report.js';
import { NOW, addKnowledge, addTask, chainedDraft, newDraft } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

/**
 * What a read costs on a large checkpoint with a ledger tail (issue 28): a command that answers
 * about a few nodes reads their edges through the saved endpoints and derives no head it does not
 * need, and answers as a whole-graph derivation does.
 */
describe('point reads of a checkpointed graph with a ledger tail', () => {
  const tempDir = useTempDir();
  const CHAINS = 60;
  const LENGTH = 10;
  const open = () => new FsProjectStoreFactory(tempDir(), stateDirectoryLock).open('demo-1234');
  const checkpointFile = () => path.join(tempDir(), 'projects', 'demo-1234', 'tasks.json');

  /** Chains of tasks behind gates, knowledge scoped to some of them; then a tail of commits. */
  async function project(): Promise<FsProjectStore> {
    const draft = chainedDraft(CHAINS, LENGTH, (chain) => (chain === 7 ? 'the one needle here' : 'plain words'));
    const store = open();
    await store.replace({ ...plainGraph(draft.graph), log: [] });
    // The tail: a chain's first task taken, submitted and accepted (its successor becomes ready), a note on a knowledge item.
    for (const step of [
      (work: GraphDraft) => take(work, 'T-0-0'),
      (work: GraphDraft) => submit(work, 'T-0-0', 'done'),
      (work: GraphDraft) => accept(work, 'T-0-0'),
      (work: GraphDraft) => addNote(work, 'K-3', 'a note'),
    ]) {
      await store.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        step(work);
        return { result: null, changes: work.changes() };
      });
    }
    return store;
  }

  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, at) => from + at);
  /** The same read on a plain copy of the graph, every index derived afresh. */
  const fresh = (graph: Graph) => new GraphDraft(projectState(structuredClone(plainGraph(graph))), NOW, null);
  const counts = (graph: Graph) => {
    const { indexes } = graph as ProjectState;
    return { groupings: indexes.edges.wholeGroupings, derivations: indexes.statuses.derivations };
  };

  it('lists and counts every id with the file\'s ids indexed once, however often a command asks', async () => {
    const sut = await project();
    const indexings = sinon.spy(CheckpointNodes.prototype as unknown as { fileIdSet(): unknown }, 'fileIdSet');
    const { lists, counts, changed } = await sut.readGraph((graph) => {
      const lists = [nodeIds(graph), nodeIds(graph), nodeIds(graph)];
      const counts = [nodeCount(graph), nodeCount(graph)];
      // A node deleted, one deleted and set again (it then comes last, as in a record), one added.
      const again = nodeOf(graph, 'T-1-1')!;
      deleteNode(graph, 'T-1-0');
      deleteNode(graph, 'T-1-1');
      setNode(graph, 'T-1-1', again);
      setNode(graph, 'T-new', again);
      return { lists, counts, changed: { ids: nodeIds(graph), count: nodeCount(graph) } };
    });
    const all = CHAINS * (LENGTH + 2);
    expect(lists[0]).to.have.length(all);
    expect(new Set(lists[0])).to.have.property('size', all);
    expect(lists[1]).to.deep.equal(lists[0]);
    expect(lists[2]).to.deep.equal(lists[0]);
    expect(counts).to.deep.equal([all, all]);
    expect(changed.ids).to.deep.equal([...lists[0]!.filter((id) => id !== 'T-1-0' && id !== 'T-1-1'), 'T-1-1', 'T-new']);
    expect(changed.count).to.equal(all);
    expect(indexings.callCount).to.equal(1);
  });

  it('reads the saved edges of a hundred nodes one by one without parsing the id list (the share past which it groups the edge list is counted by the save)', async () => {
    const sut = await project();
    const ids = range(0, 50).flatMap((chain) => [`T-${chain}-3`, `T-${chain}-4`]);
    const expected = await sut.readGraph((graph) => ids.map((id) => fresh(graph).index.into(id, 'BLOCKS').map((edge) => edge.from)));
    const lists = sinon.spy(CheckpointNodes.prototype, 'fileIds');
    try {
      const { blockers, used } = await sut.readGraph((graph) => {
        const view = new GraphDraft(graph, NOW, null);
        return { blockers: ids.map((id) => view.index.into(id, 'BLOCKS').map((edge) => edge.from)), used: counts(graph) };
      });
      expect(blockers).to.deep.equal(expected);
      expect(blockers[0]).to.deep.equal(['T-0-2']);
      // 64 read one by one (more than a sixteenth of 720 nodes), then the rest from the edge list grouped once.
      expect(used.groupings).to.equal(1);
      expect(lists.callCount).to.equal(0);
    } finally {
      lists.restore();
    }
  });

  it('context reads the node and its edges, not the edge list, and derives no task head', async () => {
    const sut = await project();
    const { answer, expected, used } = await sut.readGraph((graph) => {
      const view = new GraphDraft(graph, NOW, null);
      const answer = nodeContext(view, nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 });
      return { answer, used: counts(graph), expected: nodeContext(fresh(graph), nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 }) };
    });
    expect(answer).to.deep.equal(expected);
    expect(answer.derived_status).to.equal('ready');
    expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-0']);
    // K-3 changed in the tail and may match by scope: its head alone is derived again, no task's.
    expect(used).to.deep.equal({ groupings: 0, derivations: 1 });
  });

  it('context reads the knowledge entries that can match, not the whole knowledge section, and each match where its entry says', async () => {
    const sut = await project();
    const whole = sinon.spy(SavedHeadsLine.prototype, 'knowledge');
    const lookups = sinon.spy(CheckpointNodes.prototype as unknown as { locate(id: string): unknown }, 'locate');
    const { answer, expected } = await sut.readGraph((graph) => ({
      answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
      expected: nodeContext(fresh(graph), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-5']);
    expect(whole.callCount).to.equal(0);
    // K-3 is read by the ledger tail's replay; K-5 where its entry says its line is.
    expect(lookups.args.map(([id]) => id)).to.not.include('K-5');
  });

  it('context reads the saved knowledge by scope value: the buckets of its node\'s values, not the knowledge section', async () => {
    const sut = await project();
    const section = sinon.spy(SavedHeadsLine.prototype, 'knowledgeHolding');
    const naming = sinon.spy(SavedHeadsLine.prototype, 'knowledgeNaming');
    const lookups = sinon.spy(CheckpointNodes.prototype as unknown as { locate(id: string): unknown }, 'locate');
    try {
      const { answer, expected } = await sut.readGraph((graph) => ({
        answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
        expected: nodeContext(fresh(graph), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
      }));
      expect(answer).to.deep.equal(expected);
      expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-5']);
      expect(naming.returnValues).to.deep.equal([['K-5']]);
      expect(section.callCount).to.equal(0);
      expect(lookups.args.map(([id]) => id)).to.not.include('K-5');
    } finally {
      sinon.restore();
    }
  });

  it('context reads the knowledge section, as before, without the knowledge by scope value (the previous build wrote none), with a damaged bucket, or beside heads of other rules, and answers the same', async () => {
    const sut = await project();
    // The tail changes what T-0-1 matches (K-5 moves into its scope, K-0 out), so the saved scopes are read beside changed nodes.
    for (const step of [
      (work: GraphDraft) => updateNode(work, 'K-5', { scope_tags: ['chain-0'] }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => updateNode(work, 'K-0', { scope_tags: ['chain-9'] }, { allowUnregisteredInitiative: true }),
    ]) {
      await sut.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        step(work);
        return { result: null, changes: work.changes() };
      });
    }
    const ask = () =>
      sut.readGraph((graph) => ['T-4-2', 'T-0-1', 'T-9-0'].map((id) => nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, id)!, NOW, { agent: null, staleMs: 1000 })));
    const expected = await sut.readGraph((graph) => ['T-4-2', 'T-0-1', 'T-9-0'].map((id) => nodeContext(fresh(graph), nodeOf(graph, id)!, NOW, { agent: null, staleMs: 1000 })));
    expect((await ask()).map((answer) => answer.knowledge.map((entry) => entry.node.id))).to.deep.equal([['K-4'], ['K-5'], ['K-0', 'K-9']]);
    expect(await ask()).to.deep.equal(expected);
    const text = readFileSync(checkpointFile(), 'utf8');
    for (const [name, edit, read] of [
      ['without the section', (file: string) => withoutSection(file, 'knowledge_scopes'), 'knowledge section'],
      ['with a value renamed in a bucket', (file: string) => file.replace(/("knowledge_scopes":\["[0-9a-f]{32}.*?)"chain-4"/, '$1"chain-X"'), 'knowledge section'],
      ['beside heads of other rules', (file: string) => {
        const lines = file.split('\n');
        lines[1] = memberLine({ ...JSON.parse(`{${lines[1]!.slice(0, -1)}}}`).checkpoint, heads_rules: 999 });
        return lines.join('\n');
      }, 'nodes'],
    ] as const) {
      const edited = edit(text);
      expect(edited, name).to.not.equal(text);
      writeFileSync(checkpointFile(), edited);
      const section = sinon.spy(SavedHeadsLine.prototype, 'knowledgeHolding');
      try {
        expect(await ask(), name).to.deep.equal(expected);
        // A command asks once (the first context here); later asks in one read index every knowledge head.
        expect(section.callCount, name).to.equal(read === 'knowledge section' ? 1 : 0);
      } finally {
        section.restore();
      }
    }
  });

  it("parses only the directory entries a command asks for: an entry out of the line costs its own section, not the others'", async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    const lines = text.split('\n');
    // The claims section said to end past the line's end, the directory's checksum made to hold (as a tool that rewrote it would).
    const heads = lines[4]!.replace(/("claims":\["\d{10}",")\d{10}"/, (_all, before: string) => `${before}9999999999"`);
    expect(heads).to.not.equal(lines[4]);
    lines[4] = heads;
    const directory = Buffer.from(heads.slice(0, heads.indexOf('}') + 1), 'latin1');
    lines[1] = memberLine({ ...JSON.parse(`{${lines[1]!.slice(0, -1)}}}`).checkpoint, heads_crc32: crc32(directory).toString(16).padStart(8, '0') });
    writeFileSync(checkpointFile(), lines.join('\n'));
    const naming = sinon.spy(SavedHeadsLine.prototype, 'knowledgeNaming');
    try {
      const { answer, expected } = await sut.readGraph((graph) => ({
        answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
        expected: nodeContext(fresh(graph), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 }),
      }));
      expect(answer).to.deep.equal(expected);
      expect(naming.returnValues).to.deep.equal([['K-5']]);
    } finally {
      naming.restore();
    }
  });

  it('context checks each knowledge line against the checksum its bucket gives, reading no line_crc32 for it; a line edited in place is still damage', async () => {
    const sut = await project();
    const holds = sinon.spy(CheckpointNodes.prototype as unknown as { checksumHolds(position: number): boolean }, 'checksumHolds');
    const positions = await sut.readGraph((graph) => {
      nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 });
      return { checked: holds.args.map(([position]) => position), k5: (graph.nodes as unknown as CheckpointNodes).filePosition('K-5') };
    });
    holds.restore();
    expect(positions.k5).to.be.a('number');
    expect(positions.checked).to.not.include(positions.k5);
    const text = readFileSync(checkpointFile(), 'utf8');
    // K-5 damaged in place (the same length, the layout intact): its bucket's checksum differs, and line_crc32 says the line is damaged.
    const line = text.split('\n').find((candidate) => candidate.startsWith('"K-5":'))!;
    writeFileSync(checkpointFile(), text.replace(line, line.replace('"kind":"knowledge"', '"kind":"knowledgX"')));
    const refused = await sut.readGraph((graph) => nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-5-1')!, NOW, { agent: null, staleMs: 1000 })).catch((error: { code: string; message: string }) => error);
    expect(refused).to.include({ code: 'STORAGE_ERROR' }).and.satisfy((error: { message: string }) => /node K-5/.test(error.message));
  });

  it("context finds a deprecated match's successors by the position its entry gives, looking no knowledge id up", async () => {
    const draft = newDraft();
    addTask(draft, 'T-1', { tags: ['x'] });
    addKnowledge(draft, 'K-old', { scope: { domains: [], initiatives: [], tags: ['x'], node_ids: [] } });
    // Superseding K-old deprecates it.
    addKnowledge(draft, 'K-new', { scope: { domains: [], initiatives: [], tags: ['x'], node_ids: [] } }, { supersedes: 'K-old' });
    const sut = open();
    await sut.replace({ ...plainGraph(draft.graph), log: [] });
    const lookups = sinon.spy(CheckpointNodes.prototype as unknown as { locate(id: string): unknown }, 'locate');
    const { answer, expected } = await sut.readGraph((graph) => ({
      answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-1')!, NOW, { agent: null, staleMs: 1000 }),
      expected: nodeContext(fresh(graph), nodeOf(graph, 'T-1')!, NOW, { agent: null, staleMs: 1000 }),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.alerts.map((alert) => [alert.kind, 'superseded_by' in alert ? alert.superseded_by : null])).to.deep.equal([['KNOWLEDGE_DEPRECATED_SOON', ['K-new']]]);
    expect(lookups.args.map(([id]) => id).filter((id) => String(id).startsWith('K-'))).to.deep.equal([]);
  });

  it('context matches scopes changed, added and deprecated in the ledger tail as a fresh derivation does', async () => {
    const sut = await project();
    for (const step of [
      // K-5 now names T-0-1's tag, K-0 no longer does; K-new names T-0-1 itself; K-2 names its tag and is deprecated.
      (work: GraphDraft) => updateNode(work, 'K-5', { scope_tags: ['chain-0'] }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => updateNode(work, 'K-0', { scope_tags: ['chain-9'] }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => addKnowledge(work, 'K-new', { scope: { domains: [], initiatives: [], tags: [], node_ids: ['T-0-1'] } }),
      (work: GraphDraft) => updateNode(work, 'K-2', { scope_tags: ['chain-0'] }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => deprecateKnowledge(work, 'K-2', 'superseded'),
    ]) {
      await sut.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        step(work);
        return { result: null, changes: work.changes() };
      });
    }
    const { answer, expected } = await sut.readGraph((graph) => ({
      answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 }),
      expected: nodeContext(fresh(graph), nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 }),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-new', 'K-5']);
    expect(answer.alerts.map((alert) => alert.kind)).to.deep.equal(['KNOWLEDGE_DEPRECATED_SOON']);
  });

  it('search reads the knowledge heads alone: no edge list, no task readiness', async () => {
    const sut = await project();
    const { answer, expected, used } = await sut.readGraph((graph) => ({
      answer: searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false),
      used: counts(graph),
      expected: searchKnowledge(fresh(graph), 'needle', false),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
    // K-3 changed in the tail: its head alone is derived again.
    expect(used).to.deep.equal({ groupings: 0, derivations: 1 });
  });

  it('status --limit 20 derives what the tail changed through the saved endpoints, not a whole edge map', async () => {
    const sut = await project();
    const filters = { staleMs: 1000, limit: 20, all: false };
    const { answer, expected, used } = await sut.readGraph((graph) => ({
      answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters),
      used: counts(graph),
      expected: statusReport(fresh(graph), NOW, filters),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.tasks.ready!.map((node) => node.id)).to.include('T-0-1');
    expect(used.groupings).to.equal(0);
    // T-0-0 (taken, submitted, accepted), what it blocks (T-0-1), and K-3: never every head.
    expect(used.derivations).to.be.within(1, 6);
  });

  it('status --limit 20 reads the counts and first pages of its groups, never every head', async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    // Every head's column damaged in place: a read of the columns would derive every head again.
    writeFileSync(checkpointFile(), text.replace('"columns":{"types":"', '"columns":{"types":"x').replace(/("types":"x[gkt]*)[gkt]"/, '$1"'));
    const filters = { staleMs: 1000, limit: 20, all: false };
    const { answer, expected, used } = await sut.readGraph((graph) => ({
      answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters),
      used: counts(graph),
      expected: statusReport(fresh(graph), NOW, filters),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.summary.blocked).to.be.greaterThan(500);
    expect(used.derivations).to.be.within(1, 6);
  });

  it('status --limit 20 reads about 20 heads of each group from its saved pages, not a page of 200', async () => {
    const sut = await project();
    const read = new Map<string, number>();
    const buckets = SavedHeadsLine.prototype.buckets;
    const counting = sinon.stub(SavedHeadsLine.prototype, 'buckets').callsFake(function (this: SavedHeadsLine, ...args: Parameters<typeof buckets>) {
      const saved = buckets.apply(this, args);
      return (
        saved && {
          ...saved,
          page: (key: string, page: number) => {
            const heads = saved.page(key, page);
            read.set(key, (read.get(key) ?? 0) + (heads?.length ?? 0));
            return heads;
          },
        }
      );
    });
    try {
      const filters = { staleMs: 1000, limit: 20, all: false };
      const { answer, expected } = await sut.readGraph((graph) => ({ answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters), expected: statusReport(fresh(graph), NOW, filters) }));
      expect(JSON.stringify(answer)).to.equal(JSON.stringify(expected));
      expect(answer.summary.blocked).to.be.greaterThan(500);
      // The first page holds 20 heads: a group whose first page lost a head to the ledger tail
      // (T-0-0 left ready, T-0-1 left blocked) reads the next, of 80; the 570 blocked are never read 200 at a time.
      expect(Object.fromEntries(read)).to.deep.equal({ 'task ready': 30, 'task in_progress': 0, 'task blocked': 100, 'task backlog': 0, 'task submitted': 0, 'gate open': 20 });
    } finally {
      counting.restore();
    }
  });

  it('status lists the first heads of a group from their saved listings: it parses only the nodes the tail changed', async () => {
    const sut = await project();
    const parses = sinon.spy(CheckpointNodes.prototype as unknown as { parse(id: string): unknown }, 'parse');
    try {
      const filters = { staleMs: 1000, limit: 20, all: false, status: 'ready' };
      const { answer, parsed, expected } = await sut.readGraph((graph) => {
        const listed = statusReport(new GraphDraft(graph, NOW, null), NOW, filters);
        return { answer: listed, parsed: parses.args.map(([id]) => id), expected: statusReport(fresh(graph), NOW, filters) };
      });
      expect(JSON.stringify(answer)).to.equal(JSON.stringify(expected));
      expect(answer.tasks.ready).to.have.length(20);
      // T-0-1 became ready in the tail (its saved head was blocked): its node is read; the other 19 are listed as saved.
      expect(parsed.filter((id) => id.startsWith('T-'))).to.deep.equal(['T-0-1']);
    } finally {
      parses.restore();
    }
    // Where the listings do not check, each listed node is read instead: the same answer.
    const text = readFileSync(checkpointFile(), 'utf8');
    const damaged = text.replace(/("listing \d+ 0":\[\[")./, '$1#');
    expect(damaged).to.not.equal(text);
    writeFileSync(checkpointFile(), damaged);
    const filters = { staleMs: 1000, limit: 20, all: true };
    const again = await sut.readGraph((graph) => ({ answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters), expected: statusReport(fresh(graph), NOW, filters) }));
    expect(JSON.stringify(again.answer)).to.equal(JSON.stringify(again.expected));
  });

  it('status names what the listed blocked tasks wait on as saved: it walks only the blockers of those the tail changed something above', async () => {
    const sut = await project();
    const parses = sinon.spy(CheckpointNodes.prototype as unknown as { parse(id: string): unknown }, 'parse');
    try {
      const filters = { staleMs: 1000, limit: 20, all: false, status: 'blocked' };
      const { answer, parsed, expected } = await sut.readGraph((graph) => {
        const listed = statusReport(new GraphDraft(graph, NOW, null), NOW, filters);
        return { answer: listed, parsed: parses.args.map(([id]) => id), expected: statusReport(fresh(graph), NOW, filters) };
      });
      expect(JSON.stringify(answer)).to.equal(JSON.stringify(expected));
      // Chain 0's tasks, whose open root moved from T-0-0 to T-0-1 in the tail, chain 1 (G-1 above T-1-0 still open) and chain 10.
      expect(answer.tasks.blocked!.map((node) => node.id)).to.deep.equal([...range(2, 10).map((step) => `T-0-${step}`), ...range(0, 10).map((step) => `T-1-${step}`), 'T-10-1', 'T-10-2']);
      expect(answer.tasks.blocked![2]!.blockers).to.deep.equal({ direct: ['T-0-3'], direct_count: 1, open_roots: ['T-0-1'], open_roots_count: 1 });
      // Chain 0's blockers are walked again (what they were saved from changed); chains 1 and 10 are listed as saved, their blockers never read (K-3 is the tail's note).
      expect(new Set(parsed.filter((id) => id !== 'K-3'))).to.deep.equal(new Set(range(1, 9).map((step) => `T-0-${step}`)));
    } finally {
      parses.restore();
    }
  });

  it('status walks the blockers of a task when anything it waits on up the chain changed in the tail, or its saved blockers do not check', async () => {
    const sut = await project();
    // G-1 resolved: T-1-0 is ready, and the open root of T-1-5, five tasks below, is T-1-0 now; nothing marks T-1-5 itself.
    await sut.transact((graph) => {
      const work = new GraphDraft(graph, NOW, 'bob');
      resolve(work, 'G-1', 'go', 'decided');
      return { result: null, changes: work.changes() };
    });
    const filters = { staleMs: 1000, limit: 20, all: false, status: 'blocked' };
    const read = () => sut.readGraph((graph) => ({ answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters), expected: statusReport(fresh(graph), NOW, filters) }));
    const { answer, expected } = await read();
    expect(JSON.stringify(answer)).to.equal(JSON.stringify(expected));
    expect(answer.tasks.blocked!.find((node) => node.id === 'T-1-5')!.blockers).to.deep.equal({ direct: ['T-1-4'], direct_count: 1, open_roots: ['T-1-0'], open_roots_count: 1 });
    // Where the saved blockers do not check, each blocked task's are walked instead: the same answer.
    const text = readFileSync(checkpointFile(), 'utf8');
    const damaged = text.replace(/("blockers \d+ 0":\[\[\[")./, '$1#');
    expect(damaged).to.not.equal(text);
    writeFileSync(checkpointFile(), damaged);
    const again = await read();
    expect(JSON.stringify(again.answer)).to.equal(JSON.stringify(again.expected));
  });

  it("status --limit 20 reads each changed node's saved bucket once, however many groups it counts", async () => {
    const sut = await project();
    const entries = sinon.spy(SavedEndpoints.prototype, 'of');
    const parsed = sinon.spy(SavedEndpoints.prototype as unknown as { entry(id: string, position: number): unknown }, 'entry');
    try {
      const filters = { staleMs: 1000, limit: 20, all: true };
      const answer = await sut.readGraph((graph) => statusReport(new GraphDraft(graph, NOW, null), NOW, filters));
      expect(answer.tasks.ready!.map((node) => node.id)).to.include('T-0-1');
      // A saved bucket is taken only where the node's endpoints entry names it: that entry is read
      // once a node (and once by the edges index, for the readiness the change can move), not once a
      // group. A note on knowledge moves no readiness: its edges are not walked.
      const ids = entries.args.map(([id]) => id);
      const reads = (id: string) => ids.filter((known) => known === id).length;
      expect(['T-0-0', 'T-0-1', 'K-3'].map(reads)).to.deep.equal([2, 2, 1]);
      expect(Math.max(...ids.map(reads))).to.equal(2);
      // The bucket's check and the edges index share one reader: each entry is read from the file once.
      const read = parsed.args.map(([id]) => id);
      expect(read.length).to.equal(new Set(read).size);
    } finally {
      entries.restore();
      parsed.restore();
    }
  });

  it('reads every head instead when a saved bucket page is damaged, and answers the same', async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    // The first head of the first page names another node: the page's checksum no longer holds.
    const damaged = text.replace(/("bucket 0 0":\[\[")./, '$1#');
    expect(damaged).to.not.equal(text);
    writeFileSync(checkpointFile(), damaged);
    const filters = { staleMs: 1000, limit: 20, all: true };
    const { answer, expected } = await sut.readGraph((graph) => ({ answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters), expected: statusReport(fresh(graph), NOW, filters) }));
    expect(answer).to.deep.equal(expected);
  });

  it('falls back to the edge list when a saved endpoint entry is damaged, and answers the same', async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    // The entry of T-0-1 names its blocker T-0-0 as `BT-0-0`: damaged, its checksum no longer holds.
    const damaged = text.replace(/"T-0-1",\["BT-0-0"\]/, '"T-0-1",["BT-0-9"]');
    expect(damaged).to.not.equal(text);
    writeFileSync(checkpointFile(), damaged);
    const { answer, expected, used } = await sut.readGraph((graph) => ({
      answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 }),
      used: counts(graph),
      expected: nodeContext(fresh(graph), nodeOf(graph, 'T-0-1')!, NOW, { agent: null, staleMs: 1000 }),
    }));
    expect(answer).to.deep.equal(expected);
    expect(answer.blocking.map((entry) => entry.node.id)).to.deep.equal(['T-0-0']);
    expect(used.groupings).to.be.greaterThan(0);
  });

  it('search parses only the knowledge whose stored bytes can hold the query, and checks the lines it parses: a damaged item fails every query it can hold', async () => {
    const sut = await project();
    const nodes = CheckpointNodes.prototype as unknown as { parse(id: string): unknown; hintedNode(id: string): unknown };
    const parses = [sinon.spy(nodes, 'parse'), sinon.spy(nodes, 'hintedNode')];
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'NEEDLE', false));
      expect(answer.matches.map((match) => [match.id, match.matched_fields, match.snippet])).to.deep.equal([['K-7', ['body'], 'the one needle here']]);
      // K-3 is read by the ledger tail's replay (a note appended to it), K-7 to answer: no other item is parsed.
      expect([...new Set(parses.flatMap((spy) => spy.args.map(([id]) => id)))].sort()).to.deep.equal(['K-3', 'K-7']);
    } finally {
      for (const spy of parses) spy.restore();
    }
    const text = readFileSync(checkpointFile(), 'utf8');
    // K-12 damaged in place (the same length, the layout intact): its line no longer has the checksum it was written with.
    const line = text.split('\n').find((candidate) => candidate.startsWith('"K-12":'))!;
    writeFileSync(checkpointFile(), text.replace(line, line.replace('"kind":"knowledge"', '"kind":"knowledgX"')));
    for (const query of ['plain', 'K-12', 'know']) {
      const refused = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), query, false)).catch((error: { code: string; message: string }) => error);
      expect(refused, query).to.include({ code: 'STORAGE_ERROR' }).and.satisfy((error: { message: string }) => /node K-12/.test(error.message));
    }
    // A query its bytes cannot hold rules K-12 out unparsed, as an unread line: its damaged bytes are never printed.
    const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
    expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
  });

  it('search checksums only the knowledge lines it parses, not those its prefilter rules out', async () => {
    const sut = await project();
    const checks = sinon.spy(CheckpointNodes.prototype as unknown as { checksumHolds(position: number, entry: Buffer): boolean }, 'checksumHolds');
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
      expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
      // K-3 (read by the ledger tail's replay) and K-7 (the answer): the other knowledge lines are read to be ruled out, unchecked.
      const checked = checks.args.map(([, entry]) => entry.toString('utf8').match(/^"([^"]+)":/)![1]);
      expect([...new Set(checked)].sort()).to.deep.equal(['K-3', 'K-7']);
    } finally {
      checks.restore();
    }
  });

  it('search reads each knowledge item where the heads line says its line is, looking up no id', async () => {
    const sut = await project();
    const lookups = sinon.spy(CheckpointNodes.prototype as unknown as { locate(id: string): unknown }, 'locate');
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
      expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
      // K-3 is read by the ledger tail's replay (a note appended to it); K-7 is read where its entry says: no other id is looked up.
      expect(lookups.args.map(([id]) => id)).to.deep.equal(['K-3']);
    } finally {
      lookups.restore();
    }
    // Where the line spans are damaged, each item is looked up by id instead: the same answer.
    damageLineSpan(checkpointFile(), 'K-0');
    const again = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
    expect(again.matches.map((match) => match.id)).to.deep.equal(['K-7']);
  });

  it("search reads the filters' rows of its query's runs and the knowledge entries they let through, not the knowledge section or the filters whole", async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    const heads = Buffer.byteLength(text.split('\n')[4]!);
    const read = sinon.spy(CheckpointNodes.prototype, 'bytes');
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
      expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
      const headsRead = read.args.filter(([, , what]) => what === 'the heads').reduce((sum, [start, end]) => sum + end - start, 0);
      // The directory (about 2 KB, read at a guessed length), the entry count, four rows of 18 bytes, K-7's table entry and section entry:
      // the knowledge section (about 8 KB) and the filters (37 KB) read whole were most of the line.
      expect(headsRead).to.be.below(3_000).and.below(heads / 20);
    } finally {
      read.restore();
    }
  });

  it('search reads the line of an item its prefilter lets through once: the line it looked in is the one it parses', async () => {
    const sut = await project();
    const read = sinon.spy(CheckpointNodes.prototype, 'bytes');
    try {
      for (const [query, found] of [['needle', 'K-7'], ['K-12', 'K-12']]) {
        read.resetHistory();
        const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), query, false));
        expect(answer.matches.map((match) => match.id)).to.deep.equal([found]);
        // Looked in by storedText, then parsed by get: one read of its line, not two.
        expect(read.args.filter(([, , what]) => what === `node ${found}`), query).to.have.length(1);
      }
    } finally {
      read.restore();
    }
    // Where the heads give no line spans, a line is looked up by id (the slot table), and still read once.
    damageLineSpan(checkpointFile(), 'K-7');
    const again = sinon.spy(CheckpointNodes.prototype, 'bytes');
    const lookups = sinon.spy(CheckpointNodes.prototype as unknown as { locate(id: string): unknown }, 'locate');
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
      expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
      expect(lookups.args.map(([id]) => id)).to.include('K-7');
      expect(again.args.filter(([, , what]) => what === 'node K-7')).to.have.length(1);
    } finally {
      lookups.restore();
      again.restore();
    }
  });

  it('search answers as a fresh derivation does for knowledge added, edited and deprecated in the ledger tail', async () => {
    const sut = await project();
    for (const step of [
      // K-9 now holds the needle, K-7 no longer does; K-new holds it; K-11 holds it and is deprecated.
      (work: GraphDraft) => updateNode(work, 'K-9', { body: 'a needle too' }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => updateNode(work, 'K-7', { body: 'plain words' }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => addKnowledge(work, 'K-new', { body: 'the newest needle' }),
      (work: GraphDraft) => updateNode(work, 'K-11', { title: 'needle eleven' }, { allowUnregisteredInitiative: true }),
      (work: GraphDraft) => deprecateKnowledge(work, 'K-11', 'superseded'),
    ]) {
      await sut.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        step(work);
        return { result: null, changes: work.changes() };
      });
    }
    for (const all of [false, true]) {
      const { answer, expected } = await sut.readGraph((graph) => ({ answer: searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', all), expected: searchKnowledge(fresh(graph), 'needle', all) }));
      expect(answer, `--all ${all}`).to.deep.equal(expected);
      expect(answer.matches.map((match) => match.id), `--all ${all}`).to.deep.equal(all ? ['K-11', 'K-9', 'K-new'] : ['K-9', 'K-new']);
    }
  });

  it('search reads the lines of only the knowledge its trigram filters let through (at 50k nodes, one line of 5,000 for an id)', async () => {
    const sut = await project();
    const stored = sinon.spy(CheckpointNodes.prototype, 'storedText');
    try {
      const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
      expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
      // K-3, changed by the ledger tail, is a node, not a stored line; no other knowledge line is read to be ruled out.
      expect(linesRead(stored)).to.deep.equal(['K-7']);
      const byId = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'K-12', false));
      expect(byId.matches.map((match) => match.id)).to.deep.equal(['K-12']);
    } finally {
      stored.restore();
    }
  });

  it('reads every knowledge line, as before, in a checkpoint without trigram filters (the previous build wrote none) or with damaged ones, and answers the same', async () => {
    const sut = await project();
    const queries = ['needle', 'KNOW 1', 'plain words', 'chain-4', 'K-12'];
    const ask = () => sut.readGraph((graph) => queries.map((query) => searchKnowledge(new GraphDraft(graph, NOW, null), query, true)));
    const expected = await ask();
    const text = readFileSync(checkpointFile(), 'utf8');
    for (const [name, edit] of [
      ['without the section', withoutTrigrams],
      ['with its entry count one more', (file: string) => file.replace(/("knowledge_trigram_rows":")([0-9a-f]{8})/, (_all, before: string, count: string) => `${before}${(parseInt(count, 16) + 1).toString(16).padStart(8, '0')}`)],
      ["with a row of one of the query's runs damaged", (file: string) => withRowDamaged(file, 'needle')],
      ["with the table entry of the query's match damaged", (file: string) => withTableEntryDamaged(file, 7)],
    ] as const) {
      const edited = edit(text);
      expect(edited, name).to.not.equal(text);
      writeFileSync(checkpointFile(), edited);
      const stored = sinon.spy(CheckpointNodes.prototype, 'storedText');
      try {
        expect(await ask(), name).to.deep.equal(expected);
        expect(new Set(linesRead(stored)).size, name).to.equal(CHAINS - 1);
      } finally {
        stored.restore();
      }
    }
  });

  it('derives the knowledge heads again when their section is damaged, and finds the same', async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'utf8');
    // The knowledge section names K-9 where K-7 was (trusted, search would miss K-7): its checksum no longer holds.
    const damaged = text.replace(/\["K-7","active"/, '["K-9","active"');
    expect(damaged).to.not.equal(text);
    writeFileSync(checkpointFile(), damaged);
    const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
    expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-7']);
  });
});

/** The ids whose stored line `storedText` read. */
function linesRead(stored: sinon.SinonSpy<[string], string | undefined>): string[] {
  return stored.args.flatMap(([id], call) => (stored.returnValues[call] === undefined ? [] : [id]));
}

/**
 * The checkpoint `text` as the build before the trigram filters by bit wrote it: its heads line
 * without the `knowledge_trigram_rows` section, line 2 saying where the rest now is.
 */
function withoutTrigrams(text: string): string {
  return withoutSection(text, 'knowledge_trigram_rows');
}

/** The checkpoint `file` with the line span the knowledge heads give for `id` one byte off, its checksum left. */
function damageLineSpan(file: string, id: string): void {
  const text = readFileSync(file, 'utf8');
  const damaged = text.replace(new RegExp(`(\\["${id}","active",[^\\t]*?\\},)(\\d)`), (_all, before: string, digit: string) => `${before}${(Number(digit) + 1) % 10}`);
  expect(damaged).to.not.equal(text);
  writeFileSync(file, damaged);
}

/** Where the `knowledge_trigram_rows` section's string starts in `text`, and each row's width. */
function trigramRows(text: string): { at: number; count: number; width: number } {
  const at = text.indexOf('"knowledge_trigram_rows":"') + '"knowledge_trigram_rows":"'.length;
  const count = parseInt(text.slice(at, at + 8), 16);
  return { at, count, width: Math.ceil(count / 6) };
}

/** The checkpoint `text` with the first character of the row of the first run of `piece` changed, its checksum left. */
function withRowDamaged(text: string, piece: string): string {
  const { at, width } = trigramRows(text);
  const bits = trigramBits([piece]);
  const row = at + 8 + bits[0]! * (8 + width) + 8;
  return `${text.slice(0, row)}${text[row] === 'A' ? 'B' : 'A'}${text.slice(row + 1)}`;
}

/** The checkpoint `text` with the end of the table entry of knowledge entry `ordinal` one byte on, its checksum left. */
function withTableEntryDamaged(text: string, ordinal: number): string {
  const { at, count, width } = trigramRows(text);
  const entry = at + 8 + 2040 * (8 + width) + 24 * ordinal;
  const end = parseInt(text.slice(entry + 8, entry + 16), 16);
  expect(count).to.be.above(ordinal);
  return `${text.slice(0, entry + 8)}${(end + 1).toString(16).padStart(8, '0')}${text.slice(entry + 16)}`;
}

/** The checkpoint `text` with its heads line without section `omitted`, line 2 saying where the rest now is. */
function withoutSection(text: string, omitted: string): string {
  const lines = text.split('\n');
  const heads = Buffer.from(lines[4]!);
  const directory = JSON.parse(heads.toString('latin1', HEADS_DIRECTORY_START.length, heads.indexOf('}') + 1)) as Record<string, [string, string, string]>;
  const sections = Object.entries(directory).flatMap(([name, [start, end]]) => (name === omitted ? [] : [[name, heads.subarray(Number(start), Number(end))] as const]));
  const rebuilt = finished(headsLine(sections));
  lines[4] = rebuilt.line.toString('utf8', 0, rebuilt.line.length - 1);
  const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`) as { checkpoint: { heads_crc32: string; line_crc32: [number, number, string]; lines: { heads: number } } };
  const crcs = rebuilt.bounds.get('line_crc32')!;
  Object.assign(member.checkpoint, { heads_crc32: rebuilt.crc, line_crc32: [crcs.start, crcs.end, crcs.crc] });
  member.checkpoint.lines.heads = rebuilt.line.length;
  lines[1] = memberLine(member.checkpoint);
  return lines.join('\n');
}

/** What a generator returns, run to its end. */
function finished<T>(generator: Generator<void, T>): T {
  for (let step = generator.next(); ; step = generator.next()) if (step.done) return step.value;
}
