import { appendEdge, deleteNode, edgesOf, hasNode, nodeIds, nodeOf, plainNodes, setNode } from '../../domain/node-map.js';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bufferSource, decodeCheckpoint, encodeCheckpoint, readCheckpoint } from '../../adapters/checkpoint-file.js';
import { crc32 } from '../../adapters/crc32.js';
import { GraphDraft } from '../../domain/draft.js';
import type { ProjectState } from '../../domain/project-state.js';
import type { Graph, GraphNode } from '../../domain/model.js';
import { statusReport } from '../../domain/status-report.js';
import { NOW, addKnowledge, addTask, newDraft } from '../support/graphs.js';

function task(id: string, title = `Task ${id}`): GraphNode {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    id, kind: 'resolvable', subkind: 'task', title, body: '', refs: [], meta: {}, initiative: 'a', domain: null, tags: [], revision: 1, notes: [],
    created_at: at, created_by: 'ann', updated_at: at, status: 'open', definition: null, acceptance: 'done', backlog: false, claim: null,
    submitted_by: null, submitted_at: null, done_by: null, done_at: null, accepted_by: null, accepted_at: null, note: null,
  } as GraphNode;
}

function graphOf(count: number): Graph {
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

  it('parses only the nodes a reader reads, and copies the others as they were when it is written again', () => {
    const graph = graphOf(3);
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const text = readFileSync(temp.file, 'utf8');
    // A node damaged in place: nothing reads it, so nothing fails, and a rewrite keeps its bytes.
    writeFileSync(temp.file, text.replace('"title":"Task T-2"', '"title":"Task T-X"'));
    const sut = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file);
    expect(nodeOf(sut.graph, 'T-0')).to.deep.equal(nodeOf(graph, 'T-0'));
    setNode(sut.graph, 'T-1', task('T-1', 'changed'));
    const rewritten = encodeCheckpoint(sut.graph, ledger).toString('utf8');
    expect(rewritten).to.include('"title":"Task T-X"').and.to.include('"title":"changed"');
    expect(Object.keys(JSON.parse(rewritten).nodes)).to.deep.equal(['T-0', 'T-1', 'T-2']);
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
    expect(() => edgesOf(sut.graph)).to.throw(/is malformed/);
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

/** Rewrites the layout (line lengths, node offsets) to match the (edited) lines, so only the edit is wrong. */
function fixLayout(text: string): string {
  const lines = text.split('\n');
  const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
  const nodeLines = lines.slice(5, -2);
  let offset = 0;
  member.checkpoint.ends = nodeLines.map((line, at) => {
    const end = offset + Buffer.byteLength(line) - (at < nodeLines.length - 1 ? 1 : 0);
    offset += Buffer.byteLength(line) + 1;
    return end;
  });
  member.checkpoint.lines = { heads: Buffer.byteLength(lines[2]!) + 1, edges: Buffer.byteLength(lines[3]!) + 1 };
  lines[1] = `${JSON.stringify(member).slice(1, -2)},`;
  return lines.join('\n');
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

  it('reads the heads of a checkpoint whose heads line predates its sections (one checksum, the columns alone) without deriving them', () => {
    const graph = sampleGraph();
    const expected = statusOf(structuredClone(graph));
    writeFileSync(temp.file, encodeCheckpoint(graph, ledger));
    const lines = readFileSync(temp.file, 'utf8').split('\n');
    const columns = JSON.parse(`{${lines[2]!.slice(0, -2)}}`).heads.columns;
    lines[2] = `"heads":${JSON.stringify(columns)}},`;
    const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`);
    member.checkpoint.heads_crc32 = crc32(Buffer.from(lines[2])).toString(16).padStart(8, '0');
    lines[1] = `${JSON.stringify(member).slice(1, -2)},`;
    writeFileSync(temp.file, fixLayout(lines.join('\n')));
    const decoded = decodeCheckpoint(bufferSource(readFileSync(temp.file)), temp.file).graph as ProjectState;
    expect(statusOf(decoded)).to.deep.equal(expected);
    expect(decoded.indexes.statuses.derivations).to.equal(0);
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
