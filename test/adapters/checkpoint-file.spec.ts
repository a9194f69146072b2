import { appendEdge, deleteNode, edgesOf, hasNode, nodeIds, nodeOf, plainGraph, plainNodes, setNode } from '../../domain/node-map.js';
import { expect } from 'chai';
import sinon from 'sinon';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bufferSource, copyForCheckpoint, decodeCheckpoint, encodeCheckpoint, encodeCheckpointInSlices, memberLine, readCheckpoint } from '../../adapters/checkpoint-file.js';
import { crc32 } from '../../adapters/crc32.js';
import { nodeFileSystem } from '../../adapters/file-system.js';
import { SavedHeadsLine } from '../../adapters/heads-line.js';
import { encodeSlotTable, SlotTable } from '../../adapters/node-slots.js';
import { GraphDraft } from '../../domain/draft.js';
import { accept, addNote, reject, release, resolve, submit, take } from '../../domain/lifecycle.js';
import { JsonText } from '../../domain/json-text.js';
import { CheckpointEdges, CheckpointNodes } from '../../adapters/lazy-nodes.js';
import { GraphIndex } from '../../domain/graph-index.js';
import { projectState, type ProjectState } from '../../domain/project-state.js';
import type { Edge, Graph, GraphNode, TaskNode } from '../../domain/model.js';
import { statusAnswer, statusReport, type StatusReport } from '../../domain/status-report.js';
import { dropSavedSections, editSavedClaims } from '../support/checkpoint-json.js';
import { seededRandom } from '../support/crash-file-system.js';
import { NOW, addGate, addKnowledge, addTask, newDraft } from '../support/graphs.js';
import { updateNode } from '../../domain/update.js';

function task(id: string, title = `Task ${id}`): GraphNode {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    id, kind: 'resolvable', subkind: 'task', title, body: '', refs: [], meta: {}, initiative: 'a', domain: null, tags: [], revision: 1, notes: [],
    created_at: at, created_by: 'ann', updated_at: at, status: 'open', definition: null, acceptance: 'done', backlog: false, claim: null,
    submitted_by: null, submitted_at: null, done_by: null, done_at: null, accepted_by: null, accepted_at: null, note: null,
  } as GraphNode;
}

function graphOf(count: number): Graph & { nodes: Record<string, GraphNode> } {
  const nodes: Record<string, GraphNode> = {};
  for (let i = 0; i < count; i++) nodes[`T-${i}`] = task(`T-${i}`);
  return {
    version: 1,
    fence_generation: 1,
    revision: 7,
    initiatives: { a: { desc: 'A', created_at: '2026-01-01T00:00:00.000Z' } },
    nodes,
    edges: [{ from: 'T-0', to: 'T-1', type: 'BLOCKS' }],
  };
}

/** A temporary directory per test, removed after it, and the checkpoint file's path in it. */
function tempCheckpoint(): { readonly dir: string; readonly file: string } {
  const paths = { dir: '', file: '' };
  beforeEach(() => {
    paths.dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-checkpoint-'));
    paths.file = path.join(paths.dir, 'tasks.json');
  });
  afterEach(() => rmSync(paths.dir, { recursive: true, force: true }));
  return paths;
}

const ledger = { file: 'ledger.1.jsonl', bytes: 42 };

describe('checkpoint file', () => {
  const temp = tempCheckpoint();

  it('reads back the graph it wrote, with its ledger position, as plain data', () => {
    const graph = graphOf(50);
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const sut = readCheckpoint(temp.file);
    expect(sut.ledger).to.deep.equal(ledger);
    expect(sut.graph).to.deep.equal(graph);
    expect(structuredClone(sut.graph)).to.deep.equal(graph);
  });

  it('is one JSON document holding the seven collections of spec 2.1, its log kept in the ledger', () => {
    const graph = graphOf(5);
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const { checkpoint, ...state } = JSON.parse(readFileSync(temp.file, 'utf8'));
    expect(state).to.deep.equal({ ...graph, log: [] });
    expect(checkpoint.ledger).to.deep.equal(ledger);
    expect(checkpoint.note).to.include('ledger.1.jsonl');
  });

  it('reads the saved claims once, however many status reads list them (each read parsed them again: 1 ms at 50k nodes)', () => {
    const draft = newDraft();
    addTask(draft, 'T-1');
    take(draft, 'T-1');
    const { graph } = decodeCheckpoint(bufferSource(encodeCheckpoint(draft.graph, { file: 'ledger.1.jsonl', bytes: 0 })), 'tasks.json');
    const reads = sinon.spy(CheckpointNodes.prototype, 'bytes');
    try {
      const headsRead = () => reads.getCalls().filter((call) => call.args[2] === 'the heads').length;
      expect(graph.indexes.statuses.claimedInOrder().map((head) => head.id)).to.deep.equal(['T-1']);
      const afterFirst = headsRead();
      expect(graph.indexes.statuses.claimedInOrder().map((head) => head.id)).to.deep.equal(['T-1']);
      expect(afterFirst).to.be.above(0);
      expect(headsRead()).to.equal(afterFirst);
    } finally {
      reads.restore();
    }
  });

  it('saves each claim as what a stale-claim alert says of its task and its time in ms, [id, by, at, ms]; [id, by, at] and whole heads, as earlier checkpoints saved them, give the same alerts', () => {
    const draft = newDraft();
    addTask(draft, 'T-1');
    addTask(draft, 'T-2');
    take(draft, 'T-1');
    const later = '2026-01-02T05:00:00.000Z';
    take(new GraphDraft(draft.graph, later, 'bob'), 'T-2', 60_000);
    writeFileSync(temp.file, encodeCheckpoint(draft.graph, ledger));
    expect(JSON.parse(readFileSync(temp.file, 'utf8')).checkpoint.heads.claims).to.deep.equal([
      ['T-1', 'alice', NOW, Date.parse(NOW)],
      ['T-2', 'bob', later, Date.parse(later)],
    ]);
    const alerts = () => {
      const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
      return statusReport(new GraphDraft(graph, later, null), later, { staleMs: 0, limit: 1, all: false }).alerts;
    };
    const printed = () => {
      const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
      const answer = statusAnswer(new GraphDraft(graph, later, null), later, { staleMs: 0, limit: 1, all: false });
      expect(answer).to.be.an.instanceOf(JsonText);
      return (answer as JsonText).text;
    };
    const expected = alerts();
    expect(expected.map((alert) => [alert.node, alert.claimed_by, alert.age_ms])).to.deep.equal([
      ['T-1', 'alice', Date.parse(later) - Date.parse(NOW)],
      ['T-2', 'bob', 0],
    ]);
    const expectedText = printed();
    expect(JSON.parse(expectedText).alerts).to.deep.equal(expected);
    // The claims as a checkpoint written before the times in ms saved them: printed the same.
    editSavedClaims(temp.file, [['T-1', 'alice', NOW], ['T-2', 'bob', later]]);
    expect(printed()).to.equal(expectedText);
    // The claims as a checkpoint written before saved them: each task's whole head, read as such, no other head read.
    editSavedClaims(temp.file, ['T-1', 'T-2'].map((id) => [id, NOW, 'core', null, (nodeOf(draft.graph, id) as TaskNode).claim, null, null]));
    const everyHead = sinon.spy(SavedHeadsLine.prototype, 'all');
    try {
      expect(alerts()).to.deep.equal(expected);
      expect(everyHead.callCount).to.equal(0);
    } finally {
      everyHead.restore();
    }
  });

  describe('status answered as JSON text, its alerts written from the saved claims', () => {
    const minutes = (count: number) => new Date(Date.parse(NOW) + count * 60_000).toISOString();
    const later = minutes(600);
    const filters = { staleMs: 30 * 60_000, limit: 20, all: false };
    /** Tasks T-0..T-7, T-0..T-5 claimed ten minutes apart by `agents` in turn, saved in the checkpoint. */
    const save = (agents: string[]) => {
      const draft = newDraft();
      for (let index = 0; index < 8; index++) addTask(draft, `T-${index}`);
      for (let index = 0; index < 6; index++) take(new GraphDraft(draft.graph, minutes(index * 10), agents[index % agents.length]!), `T-${index}`);
      writeFileSync(temp.file, encodeCheckpoint(draft.graph, ledger));
    };
    /** The answer the command line prints and the report any other caller gets, each from the file read afresh, `tail` applied first (a ledger tail's changes). */
    const answers = (tail: (graph: Graph) => void = () => {}, narrowed: { claimed_by?: string } = {}) =>
      [statusAnswer, statusReport].map((report) => {
        const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
        tail(graph);
        return report(new GraphDraft(graph, later, null), later, { ...filters, ...narrowed });
      });
    const printed = (answer: unknown) => JSON.stringify(answer);

    it('prints the bytes of the report, its alerts written as JSON text (with --claimed-by, which reads every head, the report)', () => {
      save(['alice', 'bøb', '😀 team']);
      const [answer, report] = answers();
      expect(answer).to.be.an.instanceOf(JsonText);
      expect((answer as JsonText).text).to.equal(printed(report));
      // The alerts as the section's bytes made them (adapters/claim-alerts-wasm.ts), no entry parsed.
      expect((answer as JsonText).parts.filter((part) => typeof part !== 'string')).to.have.length(1);
      expect((report as StatusReport).alerts).to.have.length(6);
      const [narrowed, narrowedReport] = answers(undefined, { claimed_by: 'bøb' });
      expect(printed(narrowed)).to.equal(printed(narrowedReport));
      expect((narrowedReport as StatusReport).alerts.map((alert) => alert.node)).to.deep.equal(['T-1', 'T-4']);
    });

    it('merges in the claims a ledger tail took, and leaves out those it ended', () => {
      save(['alice', 'bob']);
      const tail = (graph: Graph) => {
        // Taken between the saved claims' times, by someone else; one saved claim submitted, one released.
        take(new GraphDraft(graph, minutes(15), 'carol'), 'T-6');
        take(new GraphDraft(graph, minutes(-5), 'dan'), 'T-7');
        submit(new GraphDraft(graph, minutes(20), 'bob'), 'T-1', 'done');
        release(new GraphDraft(graph, minutes(21), 'alice'), 'T-2');
      };
      const [answer, report] = answers(tail);
      expect(answer).to.be.an.instanceOf(JsonText);
      expect((answer as JsonText).text).to.equal(printed(report));
      // Written from the parsed entries, the tail's claims merged in.
      expect((answer as JsonText).parts.every((part) => typeof part === 'string')).to.equal(true);
      expect((report as StatusReport).alerts.map((alert) => alert.node)).to.deep.equal(['T-7', 'T-0', 'T-6', 'T-3', 'T-4', 'T-5']);
    });

    it('answers with the report where a saved name holds a character JSON escapes, the claims were saved whole (an earlier form), or the section does not check', () => {
      save(['alice', 'say "hi"']);
      let [answer, report] = answers();
      expect(answer).not.to.be.an.instanceOf(JsonText);
      expect(printed(answer)).to.equal(printed(report));
      save(['alice', 'bob']);
      const draft = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph;
      editSavedClaims(temp.file, ['T-0', 'T-1'].map((id) => [id, NOW, 'core', null, (nodeOf(draft, id) as TaskNode).claim, null, null]));
      [answer, report] = answers();
      expect(answer).not.to.be.an.instanceOf(JsonText);
      expect(printed(answer)).to.equal(printed(report));
      save(['alice', 'bob']);
      // One byte of the saved claims changed, its checksum not: read from the nodes instead.
      writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace('["T-3","bob"', '["T-3","bop"'));
      [answer, report] = answers();
      expect(answer).not.to.be.an.instanceOf(JsonText);
      expect((answer as StatusReport).alerts.map((alert) => alert.claimed_by)).to.deep.equal(['alice', 'bob', 'alice', 'bob', 'alice', 'bob']);
      expect(printed(answer)).to.equal(printed(report));
    });
  });

  describe("status's first heads printed as saved", () => {
    const filters = { staleMs: 30 * 60_000, all: false };
    /** 130 ready tasks, 30 blocked behind a gate and the ready task T-r0 (one with a title JSON escapes), 5 claimed, saved in the checkpoint. */
    const save = () => {
      const draft = newDraft();
      addTask(draft, 'T-r0', { title: 'a "quoted" },{"id":"T-x"} title' });
      for (let index = 1; index < 130; index++) addTask(draft, `T-r${index}`);
      addGate(draft, 'G-1');
      for (let index = 0; index < 30; index++) addTask(draft, `T-b${index}`, {}, { blocked_by: index % 2 ? ['G-1'] : ['G-1', 'T-r0'] });
      for (let index = 0; index < 5; index++) take(draft, `T-r${index + 10}`);
      writeFileSync(temp.file, encodeCheckpoint(draft.graph, ledger));
    };
    /** The answer the command line prints and the report any other caller gets, as JSON text, each from the file read afresh, `tail` applied first. */
    const answerOf = (report: typeof statusAnswer, limit: number, tail: (graph: Graph) => void = () => {}) => {
      const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
      tail(graph);
      const answer = report(new GraphDraft(graph, NOW, null), NOW, { ...filters, limit });
      return answer instanceof JsonText ? answer.text : JSON.stringify(answer);
    };
    const answers = (limit: number, tail?: (graph: Graph) => void) => [statusAnswer, statusReport].map((report) => answerOf(report, limit, tail));
    const LIMITS = [1, 3, 19, 20, 21, 99, 100, 101];

    it('lists every group from its printed pages up to 100 heads, reading no bucket page or listing, the same bytes as the report', () => {
      save();
      const sections = sinon.spy(SavedHeadsLine.prototype as unknown as { section(name: string): unknown }, 'section');
      try {
        for (const limit of LIMITS) {
          sections.resetHistory();
          const answer = answerOf(statusAnswer, limit);
          const pages = sections.getCalls().map((call) => call.args[0]).filter((name) => /^(bucket|listing|blockers) /.test(name));
          expect(answer, `--limit ${limit}`).to.equal(answerOf(statusReport, limit));
          // Up to 100 heads a group, the printed pages alone; past them, the heads of the pages after.
          if (limit <= 100) expect(pages, `--limit ${limit}`).to.deep.equal([]);
          else expect(pages, `--limit ${limit}`).not.to.deep.equal([]);
        }
      } finally {
        sections.restore();
      }
      expect(JSON.parse(answers(20)[0]!).tasks.blocked[0].blockers).to.deep.equal({ direct: ['G-1', 'T-r0'], direct_count: 2, open_roots: ['G-1', 'T-r0'], open_roots_count: 2 });
    });

    it('reads the heads directory in one read, the listed groups\' listing, blockers and printed pages included', () => {
      const draft = newDraft();
      addGate(draft, 'G-1');
      for (let index = 0; index < 2_000; index++) addTask(draft, `T-${index}`, { backlog: index % 5 === 4 }, index % 5 === 1 ? { blocked_by: ['G-1'] } : {});
      for (let index = 0; index < 300; index += 5) take(draft, `T-${index}`);
      writeFileSync(temp.file, encodeCheckpoint(draft.graph, ledger));
      const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
      const reads = sinon.spy(CheckpointNodes.prototype, 'bytes');
      try {
        statusAnswer(new GraphDraft(graph, NOW, null), NOW, { ...filters, limit: 20 });
        // The line's first bytes (is it this layout?), then the directory: from the line's start both.
        const starts = reads.getCalls().filter((call) => call.args[2] === 'the heads').map((call) => call.args[0]);
        expect(starts.filter((start) => start === Math.min(...starts))).to.have.length(2);
      } finally {
        reads.restore();
      }
    });

    it('lists as the report does after a ledger tail that takes, submits, releases and retitles listed tasks, resolves a blocker and changes the edges of blocked tasks', () => {
      save();
      const tails: [string, (graph: Graph) => void][] = [
        ['take', (graph) => take(new GraphDraft(graph, NOW, 'bob'), 'T-r1')],
        ['submit', (graph) => submit(new GraphDraft(graph, NOW, 'alice'), 'T-r10', 'done')],
        ['release', (graph) => release(new GraphDraft(graph, NOW, 'alice'), 'T-r11')],
        ['take a task past the printed pages', (graph) => take(new GraphDraft(graph, NOW, 'bob'), 'T-r120')],
        ['retitle', (graph) => updateNode(new GraphDraft(graph, NOW, 'alice'), 'T-r2', { title: 'retitled' }, { allowUnregisteredInitiative: false })],
        ['submit a blocker', (graph) => {
          take(new GraphDraft(graph, NOW, 'bob'), 'T-r0');
          submit(new GraphDraft(graph, NOW, 'bob'), 'T-r0', 'done');
        }],
        // Edge changes that leave a listed blocked task blocked, its blockers changed: no head moves into a group.
        ['add a blocker to a listed blocked task', (graph) => new GraphDraft(graph, NOW, 'alice').addEdge({ from: 'T-r5', to: 'T-b0', type: 'BLOCKS' })],
        ['remove one of two blockers', (graph) => new GraphDraft(graph, NOW, 'alice').removeEdge({ from: 'T-r0', to: 'T-b0', type: 'BLOCKS' })],
        ['block the gate the blocked tasks wait on', (graph) => new GraphDraft(graph, NOW, 'alice').addEdge({ from: 'T-r6', to: 'G-1', type: 'BLOCKS' })],
      ];
      for (const [name, tail] of tails) {
        for (const limit of LIMITS) {
          const [answer, report] = answers(limit, tail);
          expect(answer, `${name}, --limit ${limit}`).to.equal(report);
        }
      }
      // A task taken past the printed pages moves into in_progress: the ages of the two groups it touched
      // are read (where it goes among them), and no head's listing: every group is listed as printed.
      const sections = sinon.spy(SavedHeadsLine.prototype as unknown as { section(name: string): unknown }, 'section');
      try {
        answerOf(statusAnswer, 20, tails[3]![1]);
        const read = (kinds: string) => new Set(sections.getCalls().map((call) => new RegExp(`^(?:${kinds}) (\\d+) `).exec(call.args[0])?.[1]).filter((bucket) => bucket !== undefined));
        expect(read('bucket').size).to.equal(2);
        expect(read('listing|blockers').size).to.equal(0);
      } finally {
        sections.restore();
      }
    });

    it('lists every --limit from 1 to 101 as a full derivation does after a tail of any kind, its groups from the printed pages, a changed head printed where its age puts it', () => {
      const ALL_LIMITS = Array.from({ length: 101 }, (_, at) => at + 1);
      const as = (agent: string, graph: Graph) => new GraphDraft(graph, NOW, agent);
      // Those that change a blocker of listed blocked tasks (G-1, T-r0) say so: that group is then read from its heads.
      const tails: [string, (graph: Graph) => void, 'changes listed blockers'?][] = [
        ['update', (graph) => updateNode(as('alice', graph), 'T-r2', { title: 'retitled' }, { allowUnregisteredInitiative: false })],
        ['note', (graph) => addNote(as('alice', graph), 'T-b3', 'a note')],
        ['take', (graph) => take(as('bob', graph), 'T-r1')],
        ['submit', (graph) => submit(as('alice', graph), 'T-r10', 'done')],
        ['accept a blocker', (graph) => {
          take(as('bob', graph), 'T-r0');
          submit(as('bob', graph), 'T-r0', 'done');
          accept(as('carol', graph), 'T-r0');
        }, 'changes listed blockers'],
        ['reject', (graph) => {
          submit(as('alice', graph), 'T-r11', 'done');
          reject(as('carol', graph), 'T-r11', 'again');
        }],
        ['release', (graph) => release(as('alice', graph), 'T-r12')],
        ['resolve the gate', (graph) => resolve(as('carol', graph), 'G-1', 'yes', 'because'), 'changes listed blockers'],
        ['block a ready task', (graph) => as('alice', graph).addEdge({ from: 'T-r3', to: 'T-r4', type: 'BLOCKS' })],
        ['unblock a blocked task', (graph) => as('alice', graph).removeEdge({ from: 'G-1', to: 'T-b1', type: 'BLOCKS' }), 'changes listed blockers'],
        // Made at the same time as the saved tasks, it is listed among them by its id.
        ['add a task', (graph) => addTask(as('alice', graph), 'T-r05')],
        ['remove a task added, and add it again', (graph) => {
          const draft = as('alice', graph);
          addTask(draft, 'T-r06');
          draft.rollback();
          addTask(as('alice', graph), 'T-r06', { title: 'again' });
        }],
        ['a take rolled back', (graph) => {
          const draft = as('bob', graph);
          take(draft, 'T-r3');
          draft.rollback();
        }],
        ['replace a listed task', (graph) => {
          const draft = as('alice', graph);
          draft.putNode({ ...(nodeOf(graph, 'T-r7') as TaskNode), title: 'replaced', tags: ['x'], revision: 9 });
        }],
      ];
      /** The answers of a plain copy of the graph the tail left, every head derived from the nodes, by limit. */
      const derivedAnswers = (tail: (graph: Graph) => void) => {
        const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
        tail(graph);
        const plain = projectState(structuredClone(plainGraph(graph)));
        return (limit: number) => JSON.stringify(statusReport(new GraphDraft(plain, NOW, null), NOW, { ...filters, limit }));
      };
      save();
      const sections = sinon.spy(SavedHeadsLine.prototype as unknown as { section(name: string): unknown }, 'section');
      try {
        for (const [name, tail, blockersChanged] of tails) {
          const derived = derivedAnswers(tail);
          for (const limit of ALL_LIMITS) {
            sections.resetHistory();
            expect(answerOf(statusAnswer, limit, tail), `${name}, --limit ${limit}`).to.equal(derived(limit));
            // Within the printed pages' 100 heads (one taken out of a group may leave them short), no
            // head's listing or blockers is read: the changed heads are read from their nodes.
            const listings = sections.getCalls().filter((call) => /^(listing|blockers) /.test(call.args[0]));
            if (limit < 100 && !blockersChanged) expect(listings, `${name}, --limit ${limit}`).to.deep.equal([]);
          }
        }
      } finally {
        sections.restore();
      }
      // Printed pages dropped (an earlier release), or a page of heads that does not check (the ages
      // of its heads unknown): the heads are read instead, with the same answers.
      const damages: [string, () => void][] = [
        ['printed pages dropped', () => dropSavedSections(temp.file, 'printed ')],
        ['a first page of heads damaged', () => {
          const text = readFileSync(temp.file, 'utf8');
          const damaged = text.replace(/("bucket \d+ 0":\[\[")./g, '$1#');
          expect(damaged).not.to.equal(text);
          writeFileSync(temp.file, damaged);
        }],
      ];
      for (const [damage, apply] of damages) {
        save();
        apply();
        for (const [name, tail] of tails) {
          const derived = derivedAnswers(tail);
          for (const limit of LIMITS) expect(answerOf(statusAnswer, limit, tail), `${damage}, ${name}, --limit ${limit}`).to.equal(derived(limit));
        }
      }
    });

    it('lists from the heads where printed pages are absent (an earlier release) or do not check', () => {
      save();
      const expected = LIMITS.map((limit) => answers(limit)[1]);
      expect(readFileSync(temp.file, 'utf8')).to.include('"printed 0 0"');
      dropSavedSections(temp.file, 'printed ');
      expect(readFileSync(temp.file, 'utf8')).not.to.include('"printed 0 0"');
      expect(LIMITS.map((limit) => answers(limit)[0])).to.deep.equal(expected);
      save();
      // One byte of a printed page changed, its checksum not: the page's heads are read instead.
      const text = readFileSync(temp.file, 'utf8');
      const damaged = text.replace('\\"title\\":\\"title of T-r3\\"', '\\"title\\":\\"title of T-r9\\"');
      expect(damaged).not.to.equal(text);
      writeFileSync(temp.file, damaged);
      expect(LIMITS.map((limit) => answers(limit)[0])).to.deep.equal(expected);
    });
  });

  it('parses only the nodes a reader reads, and copies the others as they were when it is written again', () => {
    const graph = graphOf(3);
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const text = readFileSync(temp.file, 'utf8');
    // A node damaged in place: nothing reads it, so nothing fails, and a rewrite keeps its bytes (and the damage is still found).
    writeFileSync(temp.file, text.replace('"title":"Task T-2"', '"title":"Task T-X"'));
    const sut = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    expect(nodeOf(sut.graph, 'T-0')).to.deep.equal(nodeOf(graph, 'T-0'));
    setNode(sut.graph, 'T-1', task('T-1', 'changed'));
    const rewritten = encodeCheckpoint(sut.graph, ledger, sut.nodes);
    expect(rewritten.toString('utf8')).to.include('"title":"Task T-X"').and.to.include('"title":"changed"');
    expect(Object.keys(JSON.parse(rewritten.toString('utf8')).nodes)).to.deep.equal(['T-0', 'T-1', 'T-2']);
    expect(() => nodeOf(decodeCheckpoint(bufferSource(rewritten), temp.file).graph, 'T-2')).to.throw(/line of node T-2 is not the one/);
  });

  it('parses the edges only when read, and copies them as written when a rewrite did not read them, with the edges appended since', () => {
    writeFileSync(temp.file, encodeCheckpoint(graphOf(3), ledger));
    // An edge damaged in place (the same length, so the layout holds): nothing reads it, so nothing fails.
    writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace('"type":"BLOCKS"', '"type":"BLOCKX"'));
    const sut = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    expect(nodeOf(sut.graph, 'T-2')!.id).to.equal('T-2');
    appendEdge(sut.graph, { from: 'T-1', to: 'T-2', type: 'BLOCKS' });
    const rewritten = encodeCheckpoint(sut.graph, ledger, sut.nodes).toString('utf8');
    expect(rewritten).to.include('"edges":[{"from":"T-0","to":"T-1","type":"BLOCKX"},{"from":"T-1","to":"T-2","type":"BLOCKS"}],\n');
    expect(() => edgesOf(sut.graph)).to.throw(/edges line is not as written/);
  });

  const isInvalid = (error: { code: string; details: { cause: string } }) => error.code === 'STORAGE_ERROR' && error.details.cause === 'EINVALID';

  it("refuses an edge edited in place into another well-formed edge when the edges are read, and a rewrite that copies them unread keeps the damage found", () => {
    const edges: Edge[] = [{ from: 'T-0', to: 'T-1', type: 'BLOCKS' }, { from: 'T-150', to: 'T-162', type: 'BLOCKS' }];
    const graph = { ...graphOf(300), edges };
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    // A digit flipped on disk: T-150 blocks T-162 reads as T-250 blocks T-162, JSON and shape intact.
    writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace('{"from":"T-150","to":"T-162"', '{"from":"T-250","to":"T-162"'));
    expect(() => readCheckpoint(temp.file)).to.throw(/edges line is not as written/).that.satisfies(isInvalid);
    const sut = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    appendEdge(sut.graph, { from: 'T-1', to: 'T-2', type: 'BLOCKS' });
    const rewritten = encodeCheckpoint(sut.graph, ledger, sut.nodes);
    expect(rewritten.toString('utf8')).to.include('{"from":"T-250","to":"T-162","type":"BLOCKS"},{"from":"T-1","to":"T-2","type":"BLOCKS"}],\n');
    expect(() => edgesOf(decodeCheckpoint(bufferSource(rewritten), temp.file).graph)).to.throw(/edges line is not as written/).that.satisfies(isInvalid);
    // Undamaged, the same copy (the saved checksum continued over the edge appended) reads back.
    const intact = decodeCheckpoint(bufferSource(encodeCheckpoint(graph, ledger)), temp.file);
    appendEdge(intact.graph, { from: 'T-1', to: 'T-2', type: 'BLOCKS' });
    expect(edgesOf(decodeCheckpoint(bufferSource(encodeCheckpoint(intact.graph, ledger, intact.nodes)), temp.file).graph)).to.deep.equal([...edges, { from: 'T-1', to: 'T-2', type: 'BLOCKS' }]);
  });

  for (const [name, from, to] of [
    ["an initiative's text", '"desc":"A"', '"desc":"B"'],
    ["an initiative's member name", '"desc":"A"', '"dfsc":"A"'],
    ['the revision', '"revision":7', '"revision":8'],
  ] as const) {
    it(`refuses a checkpoint whose first line was edited in place (${name}) with STORAGE_ERROR, whatever the command reads`, () => {
      writeFileSync(temp.file, encodeCheckpoint(graphOf(3), ledger).toString('utf8').replace(from, to));
      expect(() => decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file)).to.throw(/first line is not as written/).that.satisfies(isInvalid);
    });
  }

  const remembered = { id: 'req-1', fingerprint: 'f'.repeat(64), at: '2026-01-01T00:00:00.000Z', answer: { status: 200, body: { ok: true } } };
  for (const [name, from, to] of [
    // A digit of the position changed to another record's end: the commits between were skipped, exit 0.
    ['the ledger position', '"bytes":42}', '"bytes":47}'],
    ["a remembered request's id (a retry of it would apply again)", '"id":"req-1"', '"id":"req-7"'],
    ["a remembered request's answer", '"status":200', '"status":500'],
    ['the length of a line after it', /"heads":(\d)/, '"heads":1$1'],
  ] as const) {
    it(`refuses a checkpoint whose second line was edited in place (${name}) with STORAGE_ERROR`, () => {
      const text = encodeCheckpoint(projectState(graphOf(3), null, [remembered]), ledger).toString('utf8');
      const edited = text.replace(from, to);
      expect(edited).to.not.equal(text);
      expect(() => decodeCheckpoint(bufferSource(Buffer.from(edited)), temp.file)).to.throw(/second line is not as written/).that.satisfies(isInvalid);
      expect(decodeCheckpoint(bufferSource(Buffer.from(text)), temp.file).ledger).to.deep.equal(ledger);
    });
  }

  it('reads a checkpoint written before the first line and the edges had checksums (an earlier release) unchecked, as then', () => {
    const lines = encodeCheckpoint(graphOf(3), ledger).toString('utf8').split('\n');
    lines[1] = lines[1]!.replace(/,"fields_crc32":"[0-9a-f]{8}","edges_crc32":"[0-9a-f]{8}","member_crc32":"[0-9a-f]{8}"/, '');
    expect(lines[1]).to.not.include('fields_crc32');
    writeFileSync(temp.file, lines.join('\n').replace('"desc":"A"', '"desc":"B"'));
    const sut = readCheckpoint(temp.file);
    expect(sut.graph.initiatives.a!.desc).to.equal('B');
    expect(edgesOf(sut.graph)).to.deep.equal(graphOf(3).edges);
  });

  it('does not check every id at load: a point read of a file listing an id twice succeeds, reading every id refuses it', () => {
    writeFileSync(temp.file, encodeCheckpoint(graphOf(3), ledger));
    // T-2 renamed T-1 in the node index and on its line (the same length, so the layout holds).
    const text = readFileSync(temp.file, 'utf8').replace('"ids":["T-0","T-1","T-2"]', '"ids":["T-0","T-1","T-1"]').replace('\n"T-2":', '\n"T-1":');
    writeFileSync(temp.file, text);
    const sut = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    expect(nodeOf(sut.graph, 'T-0')!.id).to.equal('T-0');
    expect(hasNode(sut.graph, 'T-2')).to.equal(false);
    expect(() => nodeIds(sut.graph)).to.throw(/listed twice/);
    expect(() => readCheckpoint(temp.file)).to.throw(/listed twice/);
  });

  it('reads every node of a 1,000-node checkpoint read lazily in well under a second, and writes them back unchanged (issue 24)', () => {
    const graph = graphOf(1_000);
    const bytes = encodeCheckpoint(graph, ledger);
    const started = performance.now();
    const decoded = decodeCheckpoint(bufferSource(bytes), temp.file);
    const nodes = plainNodes(decoded.graph);
    for (const id of nodeIds(decoded.graph)) setNode(decoded.graph, id, { ...nodes[id]! });
    // A map whose accessors were redefined one by one took seconds here (V8 copies a fast object's layout each time).
    expect(performance.now() - started).to.be.below(1_000);
    expect(nodes).to.deep.equal(graph.nodes);
    expect(encodeCheckpoint(decoded.graph, ledger, decoded.nodes).equals(bytes)).to.equal(true);
  });

  it('writes a node read or written before from the bytes it had, and a changed node as it now is', () => {
    const graph = graphOf(4);
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    // A graph kept in memory (the server's) has every node parsed.
    const { graph: kept, nodes } = readCheckpoint(temp.file);
    // Changed in place, as a store's state is, its indexes told of each change.
    const change = (id: string, node: GraphNode | null) => {
      if (node) setNode(kept, id, node);
      else deleteNode(kept, id);
      kept.indexes.nodeChanged(id);
    };
    change('T-new', task('T-new'));
    change('T-1', task('T-1', 'changed'));
    change('T-3', null);
    const once = encodeCheckpoint(kept, ledger, nodes);
    change('T-new', { ...nodeOf(kept, 'T-new')!, title: 'changed again' });
    const twice = encodeCheckpoint(kept, ledger, nodes);
    // Byte for byte what a graph of fresh objects (nothing remembered) encodes to.
    expect(twice.equals(encodeCheckpoint(structuredClone(kept), ledger))).to.equal(true);
    expect(once.equals(twice)).to.equal(false);
    expect(Object.keys(readCheckpoint(temp.file).graph.nodes)).to.have.length(4);
    writeFileSync(temp.file, twice);
    expect(readCheckpoint(temp.file).graph).to.deep.equal(structuredClone(kept));
    // A node's bytes are reused: damaged in the source buffer, the damage shows in the next write.
    const source = readFileSync(temp.file);
    const reread = decodeCheckpoint(bufferSource(source), temp.file);
    void nodeOf(reread.graph, 'T-0');
    source.write('"title":"Task T-X"', source.indexOf('"title":"Task T-0"'));
    expect(encodeCheckpoint(reread.graph, ledger, reread.nodes).toString('utf8')).to.include('"title":"Task T-X"');
  });

  it('copies a graph kept as its checkpoint bytes without reading a node, and writes it as it was when copied, whatever changes after (issue 28)', async () => {
    const graph = graphOf(2_000);
    const bytes = encodeCheckpoint(graph, ledger);
    let reads = 0;
    // A server's graph: its checkpoint's bytes in memory, a node parsed when first read.
    const { graph: kept, nodes } = decodeCheckpoint({ size: bytes.length, bytes: (start, end) => (reads++, bytes.subarray(start, end)) }, temp.file);
    const change = (id: string, node: GraphNode | null) => {
      if (node) setNode(kept, id, node);
      else deleteNode(kept, id);
      kept.indexes.nodeChanged(id);
    };
    void nodeOf(kept, 'T-0');
    change('T-1', task('T-1', 'changed'));
    change('T-new', task('T-new'));
    const asCopied = encodeCheckpoint(kept, ledger, nodes);
    void edgesOf(kept);
    reads = 0;
    const copy = copyForCheckpoint(kept);
    // Reading each of the 2,000 nodes by id held a 50k-node server's event loop 17-24 ms.
    expect(reads, 'bytes read to take the copy').to.equal(0);
    change('T-0', task('T-0', 'after the copy'));
    change('T-5', task('T-5', 'after the copy'));
    change('T-new', null);
    change('T-later', task('T-later'));
    const written = Buffer.concat(await encodeCheckpointInSlices(copy, ledger, nodes));
    expect(written.equals(asCopied)).to.equal(true);
    expect(encodeCheckpoint(kept, ledger, nodes).toString('utf8')).to.include('after the copy').and.to.include('"T-later"');
  });

  it("a server's copy of a graph whose edges were never read copies their bytes, parsing none, and writes them as they were", async () => {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < 30; at++) addTask(draft, `T${at}`, {}, { blocked_by: at === 0 ? [] : [`T${at - 1}`] });
    const { graph: kept, nodes } = decodeCheckpoint(bufferSource(encodeCheckpoint(draft.graph, ledger)), temp.file);
    addTask(new GraphDraft(kept, NOW, 'orchestrator'), 'T-new', {}, { blocked_by: ['T3'] });
    expect((kept.edges as unknown as CheckpointEdges).unread(), 'unread before the copy').to.not.equal(null);
    const copy = copyForCheckpoint(kept);
    expect((kept.edges as unknown as CheckpointEdges).unread(), 'unread after the copy').to.not.equal(null);
    const written = Buffer.concat(await encodeCheckpointInSlices(copy, ledger, nodes));
    const again = decodeCheckpoint(bufferSource(written), temp.file).graph;
    expect(edgesOf(again)).to.deep.equal([...edgesOf(draft.graph), { from: 'T3', to: 'T-new', type: 'BLOCKS' }]);
  });

  for (const [name, damage] of [
    ['empty', () => writeFileSync(temp.file, '')],
    ['garbage', () => writeFileSync(temp.file, 'not a checkpoint at all')],
    ['in the TDCK1 layout of pre-0.1 development builds', () => writeFileSync(temp.file, legacyCheckpoint(graphOf(3), '[]'))],
    ['truncated in the node section', () => truncateSync(temp.file, readFileSync(temp.file).length - 5)],
    ['truncated in the header', () => truncateSync(temp.file, 30)],
    ['holding node offsets that do not fall on line ends', () => writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace(/"ends":\[(\d+)/, (_, end) => `"ends":[${Number(end) - 3}`))],
    ['holding a log (the log is in the ledger)', () => writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace('"log":[]', '"log":[{}]'))],
    ['holding a node line more than its layout says', () => writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace('\n}}', ',\n"T-99":{}\n}}'))],
  ] as const) {
    it(`refuses a checkpoint that is ${name} with STORAGE_ERROR`, () => {
      writeFileSync(temp.file, encodeCheckpoint(graphOf(10), ledger));
      damage();
      expect(() => readCheckpoint(temp.file)).to.throw().that.satisfies((error: { code: string; details: { cause: string } }) => {
        return error.code === 'STORAGE_ERROR' && error.details.cause === 'EINVALID';
      });
    });
  }

  for (const [name, from, to] of [
    ['keyed by another id', '"id":"T-1"', '"id":"T-X"'],
    ['not JSON', '{"id":"T-1"', '{"id":T-1"'],
    ['two values on one line', '{"id":"T-1"', '1,{"id":"T-1"'],
  ] as const) {
    it(`refuses a checkpoint with a node ${name}, as STORAGE_ERROR naming the node`, () => {
      const text = encodeCheckpoint(graphOf(3), ledger).toString('utf8').replace(from, to);
      writeFileSync(temp.file, fixLayout(text));
      expect(() => readCheckpoint(temp.file)).to.throw().that.satisfies((error: { code: string; message: string }) => {
        return error.code === 'STORAGE_ERROR' && error.message.includes('T-1');
      });
    });
  }
});

/** Rewrites the layout (line lengths, node offsets, slot table) to match the (edited) lines, so only the edit is wrong. */
function fixLayout(text: string): string {
  const lines = text.split('\n');
  const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
  const nodeLines = lines.slice(7, -2);
  let offset = 0;
  const ends = nodeLines.map((line, at) => {
    const end = offset + Buffer.byteLength(line) - (at < nodeLines.length - 1 ? 1 : 0);
    offset += Buffer.byteLength(line) + 1;
    return end;
  });
  const ids = nodeLines.map((line) => line.slice(1, line.indexOf('":')));
  lines[2] = `"ids":${JSON.stringify(ids)},"ends":${JSON.stringify(ends)},`;
  const slots = finished(encodeSlotTable(ids, ends, offset, 1_000))!;
  lines[3] = slots.line.toString('latin1', 0, slots.line.length - 1);
  member.checkpoint.slot_layout = slots.layout;
  member.checkpoint.lines = Object.fromEntries(['ids', 'slots', 'heads', 'edges'].map((name, at) => [name, Buffer.byteLength(lines[2 + at]!) + 1]));
  lines[1] = memberLine(member.checkpoint);
  return lines.join('\n');
}

/** What a generator returns, run to its end. */
function finished<T>(generator: Generator<void, T>): T {
  for (let step = generator.next(); ; step = generator.next()) if (step.done) return step.value;
}

/** A checkpoint in the TDCK1 layout of pre-0.1 development builds: prefix, header line, node head section, one line per node. */
function legacyCheckpoint(graph: Graph, heads: string): string {
  const { nodes, ...rest } = graph;
  const lines = Object.values(nodes).map((node) => JSON.stringify(node));
  let offset = 0;
  const ends = lines.map((line) => (offset += Buffer.byteLength(line) + 1) - 1);
  const header = JSON.stringify({ ...rest, ledger: { file: 'ledger.1.jsonl', bytes: 42 }, ids: Object.keys(nodes), ends, head_bytes: Buffer.byteLength(heads) });
  return `TDCK1 ${String(Buffer.byteLength(header)).padStart(12, '0')}\n${header}\n${heads}\n${lines.join('\n')}\n`;
}

describe('checkpoint file: node heads (status buckets) saved with the graph', () => {
  const temp = tempCheckpoint();

  function sampleGraph(): Graph {
    const draft = newDraft('orchestrator');
    addTask(draft, 'T1');
    addTask(draft, 'T2', {}, { blocked_by: ['T1'] });
    addTask(draft, 'T3', { status: 'done', done_by: 'bob' });
    addKnowledge(draft, 'K1');
    return draft.graph;
  }

  const statusOf = (graph: Graph) => statusReport(new GraphDraft(graph, NOW, null), NOW, { staleMs: 1000, limit: 100, all: false });

  it('lets status read only the nodes it lists: a damaged node it does not list is never parsed', () => {
    const graph = sampleGraph();
    const expected = statusOf(structuredClone(graph));
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    writeFileSync(temp.file, readFileSync(temp.file, 'utf8').replace(/^"T3":\{/m, '"T3":['));
    expect(statusOf(decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph)).to.deep.equal(expected);
  });

  it('refuses a node whose fields have the wrong shape with STORAGE_ERROR naming it, when it is read, not a TypeError later', () => {
    const graph = sampleGraph();
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const text = readFileSync(temp.file, 'utf8');
    const at = text.indexOf('"notes":[]', text.indexOf('"T1":{'));
    // Same length, so the layout still holds: only the field's shape is wrong.
    writeFileSync(temp.file, `${text.slice(0, at)}"notes":{}${text.slice(at + '"notes":[]'.length)}`);
    const decoded = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph;
    expect(nodeOf(decoded, 'T2')!.title).to.be.a('string');
    expect(() => nodeOf(decoded, 'T1')).to.throw().that.satisfies((error: any) => error.code === 'STORAGE_ERROR' && /node T1 has notes that are not a list/.test(error.message));
  });

  it('derives again the heads of a checkpoint whose heads line predates its sections (one checksum, the columns alone): it saves no line checksums to hold them to', () => {
    const graph = sampleGraph();
    const expected = statusOf(structuredClone(graph));
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const lines = readFileSync(temp.file, 'utf8').split('\n');
    // Line 5, after the id list and the slot table.
    const columns = JSON.parse(`{${lines[4]!.slice(0, -2)}}`).heads.columns;
    lines[4] = `"heads":${JSON.stringify(columns)}},`;
    const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
    member.checkpoint.heads_crc32 = crc32(Buffer.from(lines[4])).toString(16).padStart(8, '0');
    lines[1] = memberLine(member.checkpoint);
    writeFileSync(temp.file, fixLayout(lines.join('\n')));
    const decoded = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph as ProjectState;
    expect(statusOf(decoded)).to.deep.equal(expected);
    expect(decoded.indexes.statuses.derivations).to.be.greaterThan(0);
  });

  /** The checkpoint of `graph` with node `id`'s line edited in place, its length kept (`from` and `to` of one length). */
  function editedInPlace(graph: Graph, id: string, from: string, to: string): Buffer {
    const bytes = encodeCheckpoint(graph, ledger);
    const at = bytes.indexOf(from, bytes.indexOf(`\n"${id}":{`));
    expect(at).to.be.greaterThan(0);
    bytes.write(to, at);
    return bytes;
  }

  const isDamageOf = (id: string) => (error: { code?: string; message?: string }) => error.code === 'STORAGE_ERROR' && (error.message ?? '').includes(`line of node ${id} is not the one the checkpoint was written with`);

  it("refuses a node whose line was edited in place to the same length (its status letters) when it is read, as its heads were derived from the line as written", () => {
    const decoded = decodeCheckpoint(bufferSource(editedInPlace(sampleGraph(), 'T1', '"status":"open"', '"status":"done"')), temp.file).graph;
    expect(nodeOf(decoded, 'T3')!.title).to.be.a('string');
    expect(() => nodeOf(decoded, 'T1')).to.throw().that.satisfies(isDamageOf('T1'));
    // status lists T1 (ready) and T2 (blocked by T1) as saved, reading neither line: the state as written.
    expect(statusOf(decoded)).to.deep.equal(statusOf(sampleGraph()));
  });

  it("a rewrite copies an unread line with the checksum saved for it: the damage is still found in the file it writes", () => {
    const source = decodeCheckpoint(bufferSource(editedInPlace(sampleGraph(), 'T3', '"status":"done"', '"status":"open"')), temp.file);
    setNode(source.graph, 'T2', { ...nodeOf(source.graph, 'T2')!, title: 'changed' });
    (source.graph as ProjectState).indexes.nodeChanged('T2');
    const rewritten = decodeCheckpoint(bufferSource(encodeCheckpoint(source.graph, ledger, source.nodes)), temp.file).graph;
    expect(nodeOf(rewritten, 'T2')!.title).to.equal('changed');
    expect(() => nodeOf(rewritten, 'T3')).to.throw().that.satisfies(isDamageOf('T3'));
  });

  it('a rewrite copying unread lines in runs writes the separator between two of them afresh: one damaged in the file read is not carried into the file it writes', () => {
    const draft = newDraft('orchestrator');
    addTask(draft, 'T1');
    for (const id of ['T3', 'T4', 'T5']) addTask(draft, id, { status: 'done', done_by: 'bob' });
    const pristine = encodeCheckpoint(draft.graph, ledger);
    // The comma between the lines of T3 and T4, which status never reads, turned into a space.
    const damaged = Buffer.from(pristine.toString('utf8').replace(',\n"T4":{', ' \n"T4":{'));
    expect(damaged.equals(pristine)).to.equal(false);
    const source = decodeCheckpoint(bufferSource(damaged), temp.file);
    const rewritten = encodeCheckpoint(source.graph, ledger, source.nodes);
    expect(rewritten.equals(pristine), rewritten.toString('utf8').slice(rewritten.indexOf('"nodes":{'))).to.equal(true);
  });

  it("a rewrite saves no blockers for a task whose blocker's line is damaged: status then walks them, and names the damage", () => {
    const source = decodeCheckpoint(bufferSource(editedInPlace(sampleGraph(), 'T1', '"status":"open"', '"status":"done"')), temp.file);
    const rewritten = decodeCheckpoint(bufferSource(encodeCheckpoint(source.graph, ledger, source.nodes)), temp.file).graph;
    const blocked = () => statusReport(new GraphDraft(rewritten, NOW, null), NOW, { staleMs: 1000, limit: 100, all: false, status: 'blocked' });
    expect(blocked).to.throw().that.satisfies(isDamageOf('T1'));
  });

  it('derives the heads again from the nodes when they are missing, malformed or not JSON, with the same answer, and encodes the graph again', () => {
    const graph = sampleGraph();
    const expected = statusOf(structuredClone(graph));
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const text = readFileSync(temp.file, 'utf8');
    // The heads line no longer JSON (a byte flipped in place), of the wrong shape, and null.
    const notJson = text.replace('"types":"', 'x"types":"');
    for (const damaged of [notJson, text.replace('"types":"', '"types":"x'), text.replace(/^"heads":.*$/m, '"heads":null},')]) {
      writeFileSync(temp.file, fixLayout(damaged));
      const decoded = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph;
      expect(statusOf(decoded)).to.deep.equal(expected);
      expect(statusOf(decodeCheckpoint(bufferSource(encodeCheckpoint(decoded, ledger)), temp.file).graph)).to.deep.equal(expected);
    }
  });
});

describe('checkpoint file: a node found by position (the slot table, issue 28)', () => {
  const temp = tempCheckpoint();
  const isStorageError = (error: { code?: string }) => error.code === 'STORAGE_ERROR';

  /** The byte range of the line that starts with `opening` (its newline excluded). */
  function lineAt(bytes: Buffer, opening: string): { start: number; end: number } {
    const start = bytes.indexOf(`\n${opening}`) + 1;
    return { start, end: bytes.indexOf('\n', start) };
  }

  /** The id list no longer JSON, every byte where it was (so the layout holds). */
  function withIdListDamaged(bytes: Buffer): Buffer {
    const damaged = Buffer.from(bytes);
    damaged.write('{', lineAt(damaged, '"ids":').start + '"ids":['.length, 'latin1');
    return damaged;
  }

  /** A source that counts the bytes read from it. */
  function counted(bytes: Buffer): { source: ReturnType<typeof bufferSource>; read: { bytes: number } } {
    const read = { bytes: 0 };
    const source = bufferSource(bytes);
    return { read, source: { size: source.size, bytes: (start, end) => ((read.bytes += end - start), source.bytes(start, end)) } };
  }

  it('finds the nodes a command names without parsing the id list: a damaged list fails only what lists every id', () => {
    const graph = graphOf(2_000);
    const { source, read } = counted(withIdListDamaged(encodeCheckpoint(graph, ledger)));
    const sut = decodeCheckpoint(source, temp.file);
    read.bytes = 0;
    expect(nodeOf(sut.graph, 'T-1500')).to.deep.equal(graph.nodes['T-1500']);
    expect(nodeOf(sut.graph, 'T-7')).to.deep.equal(graph.nodes['T-7']);
    expect(hasNode(sut.graph, 'T-42')).to.equal(true);
    expect(hasNode(sut.graph, 'T-2000')).to.equal(false);
    // Under a kilobyte of table per lookup, 8 bytes of checksum per line, and the nodes' lines: not the 30 KB id list.
    expect(read.bytes).to.be.below(6_000);
    setNode(sut.graph, 'T-2000', task('T-2000'));
    expect(nodeOf(sut.graph, 'T-2000')!.id).to.equal('T-2000');
    expect(() => nodeIds(sut.graph)).to.throw(/its id list is not JSON/).that.satisfies(isStorageError);
    writeFileSync(temp.file, withIdListDamaged(encodeCheckpoint(graph, ledger)));
    expect(() => readCheckpoint(temp.file)).to.throw(/its id list is not JSON/).that.satisfies(isStorageError);
  });

  it('finds nodes by the table up to a budget that grows with the graph, then parses the id list once and finds the rest by it', () => {
    const graph = graphOf(2_000);
    const lookups = sinon.spy(SlotTable.prototype, 'candidates');
    const sut = decodeCheckpoint(bufferSource(encodeCheckpoint(graph, ledger)), temp.file);
    for (const id of Object.keys(graph.nodes).slice(0, 1_000)) expect(nodeOf(sut.graph, id)).to.deep.equal(graph.nodes[id]);
    // A lookup reads and checks a bucket: past 256 of them (at 2,000 nodes), one parse of the list costs less.
    expect(lookups.callCount).to.equal(256);
  });

  it("parses only the bucket entries that hold a node's fingerprint: a hundred lookups (a ledger tail's changed nodes) parse no field of the others", () => {
    const graph = graphOf(2_000);
    const sut = decodeCheckpoint(bufferSource(encodeCheckpoint(graph, ledger)), temp.file);
    const ids = Object.keys(graph.nodes).filter((_, at) => at % 20 === 3);
    const absent = ids.map((id) => `${id}-new`);
    const parsed = sinon.spy(globalThis, 'parseInt');
    const patterns = sinon.spy(RegExp.prototype, 'test');
    const lookups = sinon.spy(SlotTable.prototype, 'candidates');
    try {
      for (const id of ids) expect(nodeOf(sut.graph, id), id).to.deep.equal(graph.nodes[id]);
      for (const id of absent) expect(hasNode(sut.graph, id), id).to.equal(false);
      expect(lookups.callCount).to.equal(ids.length + absent.length);
      // A found node's entry has its digits checked and its offset, length and position parsed (a
      // fingerprint shared by chance adds one more now and then), and its line's saved checksum;
      // an absent node's, none. Parsing
      // every field of every full entry (some thirty a bucket) and testing each bucket's 216 digits
      // against a pattern cost about 30,000 instructions a bucket, and V8 compiled the loop with
      // TurboFan (5-10 ms).
      expect(parsed.callCount / lookups.callCount).to.be.below(3);
      expect(patterns.callCount / lookups.callCount).to.be.below(1);
    } finally {
      parsed.restore();
      patterns.restore();
      lookups.restore();
    }
  });

  it("gives each id the entries of its fingerprint up to its chain's first empty entry, as every field parsed says, present ids and absent ones alike", () => {
    // Ids whose fingerprints (4 hex digits) also turn up inside other entries' digits, off the entries' starts.
    const ids = Array.from({ length: 6_000 }, (_, at) => `T-${at.toString(36)}`);
    const ends: number[] = [];
    for (let at = 0, end = 0; at < ids.length; at++) ends.push((end += 40 + (at % 13)) - 2);
    const nodeBytes = ends.at(-1)! + 10;
    const { layout, line } = finished(encodeSlotTable(ids, ends, nodeBytes, 1_000))!;
    const table = new SlotTable((start, end) => line.subarray(start, end), 0, layout);
    const text = line.toString('latin1');
    const entryAt = (bucket: number, slot: number) => text.slice('"slots":['.length + bucket * 219 + 1 + 8 + slot * 26, '"slots":['.length + bucket * 219 + 1 + 8 + (slot + 1) * 26);
    const fnv = (id: string) => [...id].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
    /** What the table says of `id`, every field of every entry parsed: the entries of its fingerprint from its home bucket to the first empty one. */
    const expected = (id: string) => {
      const hash = fnv(id);
      const found: { offset: number; length: number; position: number }[] = [];
      for (let bucket = hash % layout.buckets; ; bucket = (bucket + 1) % layout.buckets) {
        for (let slot = 0; slot < 8; slot++) {
          const entry = entryAt(bucket, slot);
          const length = parseInt(entry.slice(12, 20), 16);
          if (length === 0) return found;
          if (parseInt(entry.slice(0, 4), 16) === hash >>> 16) found.push({ offset: parseInt(entry.slice(4, 12), 16), length, position: parseInt(entry.slice(20), 16) });
        }
      }
    };
    let offCentre = 0;
    for (const id of [...ids, ...ids.map((id) => `${id}-absent`)]) {
      const fingerprint = (fnv(id) >>> 16).toString(16).padStart(4, '0');
      const bucket = fnv(id) % layout.buckets;
      if (Array.from({ length: 8 }, (_, slot) => entryAt(bucket, slot).indexOf(fingerprint, 1)).some((at) => at > 0)) offCentre++;
      expect(table.candidates(id), id).to.deep.equal(expected(id));
    }
    expect(offCentre).to.be.above(0);
  });

  it('hands out a read of the checkpoint file as the buffer it was read into, making no view of it', () => {
    writeFileSync(temp.file, encodeCheckpoint(graphOf(30), ledger));
    const file = nodeFileSystem.open(temp.file);
    const views = sinon.spy(Buffer.prototype, 'subarray');
    try {
      // Each view is a Buffer made in Node's JavaScript: a status after a ledger tail reads some 500 ranges.
      expect(file.bytes(0, 16).toString('latin1')).to.equal('{"version":1,"fe');
      expect(views.callCount).to.equal(0);
      // A range past the file's end is cut where the file ends.
      expect(file.bytes(file.size - 4, file.size + 10).toString('latin1')).to.equal('\n}}\n');
    } finally {
      views.restore();
      file.close?.();
    }
  });

  it("looks a changed node's position up once, however many parts of the checkpoint ask for it (its line, its saved bucket, its edges)", () => {
    const draft = newDraft();
    for (let index = 0; index < 300; index++) addTask(draft, `T-${index}`, {}, index % 3 === 2 ? { blocked_by: [`T-${index - 1}`] } : {});
    writeFileSync(temp.file, encodeCheckpoint(draft.graph, ledger));
    const { graph } = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    const lookups = sinon.spy(SlotTable.prototype, 'candidates');
    try {
      updateNode(new GraphDraft(graph, NOW, 'alice'), 'T-7', { title: 'retitled' }, { allowUnregisteredInitiative: false });
      take(new GraphDraft(graph, NOW, 'bob'), 'T-10');
      statusAnswer(new GraphDraft(graph, NOW, null), NOW, { staleMs: 1000, limit: 20, all: false });
      const byId = (id: string) => lookups.getCalls().filter((call) => call.args[0] === id).length;
      expect([byId('T-7'), byId('T-10')]).to.deep.equal([1, 1]);
    } finally {
      lookups.restore();
    }
  });

  it('gives each node or STORAGE_ERROR, never another node, whatever bytes of its slot table are damaged', () => {
    const graph = graphOf(300);
    const ids = Object.keys(graph.nodes);
    const bytes = encodeCheckpoint(graph, ledger);
    const table = lineAt(bytes, '"slots":');
    const random = seededRandom(28);
    const damages = [0, 0, 0];
    for (let trial = 0; trial < 150; trial++) {
      const damaged = Buffer.from(bytes);
      for (let count = 1 + Math.floor(random() * 3); count > 0; count--) {
        damaged[table.start + Math.floor(random() * (table.end - table.start))] = '0123456789abcdef"x'.charCodeAt(Math.floor(random() * 18));
      }
      // With the id list intact every node is found; with it damaged too, a read may fail, but only as STORAGE_ERROR.
      for (const [listDamaged, file] of [[false, damaged], [true, withIdListDamaged(damaged)]] as const) {
        const sample = Array.from({ length: 30 }, () => ids[Math.floor(random() * ids.length)]!);
        for (const id of [...sample, 'T-300', 'X-1']) {
          let found: GraphNode | undefined;
          try {
            // A table that does not match the file is set aside at open, where the list is then read.
            found = nodeOf(decodeCheckpoint(bufferSource(file), temp.file).graph, id);
          } catch (error) {
            expect(listDamaged, `${id} in trial ${trial}`).to.equal(true);
            expect(error).to.satisfy(isStorageError);
            damages[2]!++;
            continue;
          }
          expect(found, `${id} in trial ${trial}`).to.deep.equal(graph.nodes[id]);
          damages[listDamaged ? 1 : 0]!++;
        }
      }
    }
    // Both outcomes were seen: damage the table's checks caught (the list then answers) and damage that left the lookups whole.
    expect(damages[2]).to.be.above(0);
    expect(damages[1]).to.be.above(0);
  });

  it('checks a hit against the node line it points to: a table rewritten to point elsewhere, its checksums right, still gives each node', () => {
    const graph = graphOf(40);
    const bytes = encodeCheckpoint(graph, ledger);
    const text = bytes.toString('utf8');
    const listLine = lineAt(bytes, '"ids":');
    const { ids, ends } = JSON.parse(`{${bytes.toString('utf8', listLine.start, listLine.end - 1)}}`);
    // Each pair of neighbours swapped in the table: T-0's entry names T-1's line, and so on.
    const swapped = ids.map((_: string, at: number) => ids[at % 2 === 0 ? Math.min(at + 1, ids.length - 1) : at - 1]);
    const nodeBytes = bytes.length - text.indexOf('"nodes":{\n') - '"nodes":{\n'.length - 3;
    const forged = finished(encodeSlotTable(swapped, ends, nodeBytes, 1_000))!;
    const table = lineAt(bytes, '"slots":');
    const file = Buffer.concat([bytes.subarray(0, table.start), forged.line.subarray(0, -1), bytes.subarray(table.end)]);
    expect(file.length).to.equal(bytes.length);
    const sut = decodeCheckpoint(bufferSource(file), temp.file);
    for (const id of ids) expect(nodeOf(sut.graph, id), id).to.deep.equal(graph.nodes[id]);
    expect(hasNode(sut.graph, 'T-40')).to.equal(false);
  });

  it('checks that a hit ends its line where the table says: a table giving a wrong length, its checksums right, still gives the node and its stored text', () => {
    const graph = graphOf(40);
    const bytes = encodeCheckpoint(graph, ledger);
    const listLine = lineAt(bytes, '"ids":');
    const { ids, ends } = JSON.parse(`{${bytes.toString('utf8', listLine.start, listLine.end - 1)}}`);
    const nodeBytes = bytes.length - bytes.indexOf('"nodes":{\n') - '"nodes":{\n'.length - 3;
    // T-5's entry three bytes short (the node after it then starts three bytes early too).
    const short = ends.map((end: number, at: number) => (at === 5 ? end - 3 : end));
    const forged = finished(encodeSlotTable(ids, short, nodeBytes, 1_000))!;
    const table = lineAt(bytes, '"slots":');
    const file = Buffer.concat([bytes.subarray(0, table.start), forged.line.subarray(0, -1), bytes.subarray(table.end)]);
    const text = (id: string) => decodeCheckpoint(bufferSource(file), temp.file).nodes!.storedText(id);
    expect(text('T-5')).to.equal(`"T-5":${JSON.stringify(graph.nodes['T-5'])}`);
    expect(text('T-6')).to.equal(`"T-6":${JSON.stringify(graph.nodes['T-6'])}`);
    for (const id of ['T-5', 'T-6']) expect(nodeOf(decodeCheckpoint(bufferSource(file), temp.file).graph, id), id).to.deep.equal(graph.nodes[id]);
  });

  for (const [name, edit] of [
    ['a bucket count that is not the table', (member: any) => (member.checkpoint.slot_layout.buckets += 1)],
    ['a node section length that is not the file', (member: any) => (member.checkpoint.slot_layout.node_bytes -= 1)],
    ['a table format this release does not know', (member: any) => (member.checkpoint.slot_layout.format = 2)],
  ] as const) {
    it(`does not use a slot table whose line 2 gives ${name}: the id list answers, parsed at open`, () => {
      const graph = graphOf(30);
      const lines = encodeCheckpoint(graph, ledger).toString('utf8').split('\n');
      const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
      edit(member);
      lines[1] = memberLine(member.checkpoint);
      const file = Buffer.from(lines.join('\n'));
      const sut = decodeCheckpoint(bufferSource(file), temp.file);
      expect(nodeOf(sut.graph, 'T-12')).to.deep.equal(graph.nodes['T-12']);
      expect(() => decodeCheckpoint(bufferSource(withIdListDamaged(file)), temp.file)).to.throw(/its id list is not JSON/).that.satisfies(isStorageError);
    });
  }

  it('reads a checkpoint of release 0.1.0 (its ids on line 2, no slot table), and writes it again with the table', () => {
    const graph = graphOf(25);
    const lines = encodeCheckpoint(graph, ledger).toString('utf8').split('\n');
    const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
    const { ids, ends } = JSON.parse(`{${lines[2]!.slice(0, -1)}}`);
    const { slot_layout: _layout, lines: lengths, member_crc32: _crc, ...rest } = member.checkpoint;
    const earlier = { ...rest, lines: { heads: lengths.heads, edges: lengths.edges }, ids, ends };
    const old = [lines[0], `"checkpoint":${JSON.stringify(earlier).slice(0, -1)},`, ...lines.slice(4)].join('\n');
    writeFileSync(temp.file, old);
    expect(readCheckpoint(temp.file).graph).to.deep.equal(graph);
    const sut = decodeCheckpoint(bufferSource(Buffer.from(old)), temp.file);
    expect(nodeOf(sut.graph, 'T-3')).to.deep.equal(graph.nodes['T-3']);
    const rewritten = encodeCheckpoint(sut.graph, ledger, sut.nodes);
    expect(rewritten.equals(encodeCheckpoint(graph, ledger))).to.equal(true);
    expect(rewritten.toString('utf8').split('\n')[3]).to.match(/^"slots":\["[0-9a-f]{216}"/);
  });
});

describe('checkpoint file: edges by endpoint', () => {
  const TYPES = ['BLOCKS', 'SUPERSEDES', 'DERIVED_FROM'] as const;

  /** Every node's edges of every type, by the graph's own index and by one grouped afresh from its edge list. */
  function endpointsOf(graph: Graph): { kept: unknown; fresh: unknown } {
    const kept = (graph as ProjectState).indexes.edges;
    const fresh = new GraphIndex(plainGraph(graph));
    const of = (index: GraphIndex) => nodeIds(graph).map((id) => TYPES.map((type) => [index.into(id, type), index.outOf(id, type)]));
    return { kept: of(kept), fresh: of(fresh) };
  }

  it('a rewrite copies the endpoints of nodes whose edges did not change and encodes the others: read back, they are the edge list grouped', () => {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < 30; at++) addTask(draft, `T${at}`, {}, { blocked_by: at === 0 ? [] : [`T${at - 1}`] });
    const first = decodeCheckpoint(bufferSource(encodeCheckpoint(draft.graph, ledger)), 'tasks.json');
    // After the save: an edge removed, one added, a new node with edges, a node untouched.
    const work = new GraphDraft(first.graph, NOW, 'orchestrator');
    work.removeEdge({ from: 'T4', to: 'T5', type: 'BLOCKS' });
    work.addEdge({ from: 'T0', to: 'T9', type: 'BLOCKS' });
    addTask(work, 'T-new', {}, { blocked_by: ['T20'] });
    const rewritten = encodeCheckpoint(first.graph, ledger, first.nodes);
    const second = decodeCheckpoint(bufferSource(rewritten), 'tasks.json').graph as ProjectState;
    const { kept, fresh } = endpointsOf(second);
    expect(kept).to.deep.equal(fresh);
    expect(second.indexes.edges.wholeGroupings).to.equal(0);
    // The untouched nodes' entries are the bytes they were.
    const entryOf = (bytes: Buffer, id: string) => new RegExp(`\\["[0-9a-f]{8}","${id}",[^\\]]*\\],[^\\]]*\\]\\]`).exec(bytes.toString())?.[0];
    expect(entryOf(rewritten, 'T15')).to.be.a('string').and.equal(entryOf(encodeCheckpoint(draft.graph, ledger), 'T15'));
    expect(entryOf(rewritten, 'T5')).to.not.equal(entryOf(encodeCheckpoint(draft.graph, ledger), 'T5'));
  });

  it('a rewrite that gives a node an edge of another type than its saved ones writes its entry as the whole encoding does, edges grouped by type', () => {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < 4; at++) addTask(draft, `T${at}`, {}, { blocked_by: [] });
    draft.addEdge({ from: 'T0', to: 'T1', type: 'DERIVED_FROM' });
    const first = decodeCheckpoint(bufferSource(encodeCheckpoint(draft.graph, ledger)), 'tasks.json');
    // After the save, T0 blocks T2: its edges out are a DERIVED_FROM edge, then a BLOCKS one, in the edge list.
    new GraphDraft(first.graph, NOW, 'orchestrator').addEdge({ from: 'T0', to: 'T2', type: 'BLOCKS' });
    const rewritten = encodeCheckpoint(first.graph, ledger, first.nodes);
    const whole = encodeCheckpoint(projectState(structuredClone(plainGraph(first.graph))), ledger);
    const entryOf = (bytes: Buffer) => /\["[0-9a-f]{8}","T0",[^\]]*\],[^\]]*\]\]/.exec(bytes.toString())?.[0];
    expect(entryOf(rewritten)).to.equal(entryOf(whole)).and.match(/"T0",\[\],\["BT2","DT1"\]\]$/);
    expect(rewritten.equals(whole)).to.equal(true);
  });

  it('a rewrite copying endpoints entries in runs writes the comma between two of them afresh: one damaged in the file read is not carried into the file it writes', () => {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < 30; at++) addTask(draft, `T${at}`, {}, { blocked_by: at === 0 ? [] : [`T${at - 1}`] });
    const pristine = encodeCheckpoint(draft.graph, ledger).toString();
    // The comma before T15's entry turned into a space: no entry's checksum covers it.
    const damaged = pristine.replace(/,(\["[0-9a-f]{8}","T15",)/, ' $1');
    expect(damaged).to.not.equal(pristine);
    const first = decodeCheckpoint(bufferSource(Buffer.from(damaged)), 'tasks.json');
    new GraphDraft(first.graph, NOW, 'orchestrator').addEdge({ from: 'T0', to: 'T9', type: 'BLOCKS' });
    const rewritten = encodeCheckpoint(first.graph, ledger, first.nodes);
    expect(rewritten.equals(encodeCheckpoint(projectState(structuredClone(plainGraph(first.graph))), ledger))).to.equal(true);
  });

  it("a server's copy, encoded in slices, copies the entries of nodes whose edges did not change as they were, a damaged one too", async () => {
    const draft = newDraft('orchestrator');
    for (let at = 0; at < 30; at++) addTask(draft, `T${at}`, {}, { blocked_by: at === 0 ? [] : [`T${at - 1}`] });
    const entryOf = (bytes: Buffer, id: string) => new RegExp(`\\["[0-9a-f]{8}","${id}",[^\\]]*\\],[^\\]]*\\]\\]`).exec(bytes.toString())?.[0];
    const saved = encodeCheckpoint(draft.graph, ledger).toString();
    // T15's entry with its checksum changed (same length): copied, it stays so; encoded afresh, it would be right again.
    const entry = entryOf(Buffer.from(saved), 'T15')!;
    const damaged = `["${entry[2] === '0' ? '1' : '0'}${entry.slice(3)}`;
    const first = decodeCheckpoint(bufferSource(Buffer.from(saved.replace(entry, damaged))), 'tasks.json');
    const work = new GraphDraft(first.graph, NOW, 'orchestrator');
    work.removeEdge({ from: 'T4', to: 'T5', type: 'BLOCKS' });
    addTask(work, 'T-new', {}, { blocked_by: ['T20'] });
    const rewritten = Buffer.concat(await encodeCheckpointInSlices(copyForCheckpoint(first.graph), ledger, first.nodes));
    expect(entryOf(rewritten, 'T15')).to.equal(damaged);
    const second = decodeCheckpoint(bufferSource(rewritten), 'tasks.json').graph as ProjectState;
    expect((second.indexes.edges as GraphIndex).into('T21', 'BLOCKS')).to.deep.equal([{ from: 'T20', to: 'T21', type: 'BLOCKS' }]);
    expect(second.indexes.edges.into('T5', 'BLOCKS')).to.deep.equal([]);
    expect(second.indexes.edges.outOf('T20', 'BLOCKS').map((edge) => edge.to)).to.have.members(['T21', 'T-new']);
  });
});
