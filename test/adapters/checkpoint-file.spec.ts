import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeCheckpoint, readCheckpoint } from '../../adapters/checkpoint-file.js';
import { LazyNodes } from '../../adapters/lazy-nodes.js';
import { headOf } from '../../adapters/node-head.js';
import type { Graph, GraphNode } from '../../domain/model.js';

function task(id: string, title = `Task ${id}`): GraphNode {
  return { id, kind: 'resolvable', subkind: 'task', title, status: 'open' } as unknown as GraphNode;
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

describe('checkpoint file', () => {
  let dir: string;
  let file: string;
  const ledger = { file: 'ledger.1.jsonl', bytes: 42 };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-checkpoint-'));
    file = path.join(dir, 'tasks.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads back the graph it wrote, with its ledger position', () => {
    const graph = graphOf(50);
    writeFileSync(file, encodeCheckpoint(graph, ledger, null));
    const sut = readCheckpoint(file);
    try {
      expect(sut.ledger).to.deep.equal(ledger);
      expect(JSON.parse(JSON.stringify(sut.graph))).to.deep.equal(graph);
    } finally {
      sut.close();
    }
  });

  it('parses only the nodes a reader touches', () => {
    writeFileSync(file, encodeCheckpoint(graphOf(1000), ledger, null));
    const sut = readCheckpoint(file);
    try {
      expect(sut.graph.nodes['T-500']!.title).to.equal('Task T-500');
      expect(Object.hasOwn(sut.graph.nodes, 'T-999')).to.equal(true);
      expect(Object.hasOwn(sut.graph.nodes, 'T-1000')).to.equal(false);
      const untouched = [...Array(1000).keys()].filter((i) => sut.nodes.untouchedBytes(`T-${i}`) !== null);
      expect(untouched).to.have.length(998); // T-500 and T-999 (hasOwn reads the node it finds)
    } finally {
      sut.close();
    }
  });

  it('copies untouched nodes byte for byte and writes changed ones anew', () => {
    writeFileSync(file, encodeCheckpoint(graphOf(40), ledger, null));
    const first = readCheckpoint(file);
    first.graph.nodes['T-3'] = task('T-3', 'renamed');
    first.graph.nodes['T-new'] = task('T-new');
    const rewritten = encodeCheckpoint(first.graph, ledger, first.nodes);
    first.close();
    writeFileSync(file, rewritten);
    const sut = readCheckpoint(file);
    try {
      expect(sut.graph.nodes['T-3']!.title).to.equal('renamed');
      expect(sut.graph.nodes['T-new']!.id).to.equal('T-new');
      expect(Object.keys(sut.graph.nodes)).to.have.length(41);
    } finally {
      sut.close();
    }
  });

  for (const [name, damage] of [
    ['empty', () => writeFileSync(file, '')],
    ['garbage', () => writeFileSync(file, 'not a checkpoint at all')],
    ['truncated in the node section', () => truncateSync(file, readFileSync(file).length - 5)],
    ['truncated in the header', () => truncateSync(file, 30)],
  ] as const) {
    it(`refuses a checkpoint that is ${name} with STORAGE_ERROR`, () => {
      writeFileSync(file, encodeCheckpoint(graphOf(10), ledger, null));
      damage();
      expect(() => readCheckpoint(file)).to.throw().that.satisfies((error: { code: string; details: { cause: string } }) => {
        return error.code === 'STORAGE_ERROR' && error.details.cause === 'EINVALID';
      });
    });
  }

  it('reports a malformed node when it is read, as STORAGE_ERROR', () => {
    const bytes = encodeCheckpoint(graphOf(3), ledger, null).toString('utf8').replace('"id":"T-1"', '"id":"T-X"');
    writeFileSync(file, bytes);
    const sut = readCheckpoint(file);
    try {
      expect(() => sut.graph.nodes['T-1']).to.throw().with.property('code', 'STORAGE_ERROR');
    } finally {
      sut.close();
    }
  });
});

describe('LazyNodes', () => {
  const lines = ['{"id":"a","kind":"knowledge","title":"A","body":"long text"}', '{"id":"b","kind":"knowledge","title":"B","body":"more"}'];
  const section = Buffer.from(lines.join('\n') + '\n');

  function lazy() {
    const counts = { reads: 0, parses: 0 };
    const sut = new LazyNodes({
      ids: ['a', 'b'],
      ends: [lines[0]!.length, lines[0]!.length + 1 + lines[1]!.length],
      read: (start, end) => {
        counts.reads++;
        return section.subarray(start, end);
      },
      parse: (bytes) => {
        counts.parses++;
        return JSON.parse(bytes.toString());
      },
      heads: () => lines.map((line) => headOf(JSON.parse(line))),
    });
    return { nodes: sut.record(), counts };
  }

  it('enumerates nodes from their heads, parsing a node only for a field the head lacks', () => {
    const { nodes, counts } = lazy();
    const all = Object.values(nodes);
    expect(all.map((node) => [node.id, node.title, node.kind])).to.deep.equal([
      ['a', 'A', 'knowledge'],
      ['b', 'B', 'knowledge'],
    ]);
    expect('subkind' in all[0]!).to.equal(false);
    expect(counts.parses).to.equal(0);
    expect(all[1]!.body).to.equal('more');
    expect(counts.parses).to.equal(1);
    expect({ ...all[0]! }).to.deep.equal(JSON.parse(lines[0]!));
  });

  it('sees writes through a head-backed node and deletions from the record', () => {
    const { nodes } = lazy();
    const [first] = Object.values(nodes);
    (first as { title: string }).title = 'changed';
    expect(first!.title).to.equal('changed');
    delete nodes.a;
    expect(Object.keys(nodes)).to.deep.equal(['b']);
  });
});
