import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeCheckpoint, readCheckpoint } from '../../adapters/checkpoint-file.js';
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

  it('reads back the graph it wrote, with its ledger position, as plain data', () => {
    const graph = graphOf(50);
    writeFileSync(file, encodeCheckpoint(graph, ledger));
    const sut = readCheckpoint(file);
    expect(sut.ledger).to.deep.equal(ledger);
    expect(sut.graph).to.deep.equal(graph);
    expect(structuredClone(sut.graph)).to.deep.equal(graph);
  });

  it('still reads a checkpoint written with a node head section (before plain loading)', () => {
    const graph = graphOf(3);
    const heads = Buffer.from(JSON.stringify(Object.keys(graph.nodes).map((id) => [id])));
    const current = encodeCheckpoint(graph, ledger);
    const text = current.toString('utf8');
    const headerEnd = text.indexOf('\n', text.indexOf('\n') + 1);
    const header = text.slice(text.indexOf('\n') + 1, headerEnd).replace('"head_bytes":0', `"head_bytes":${heads.length}`);
    const withHeads = Buffer.concat([
      Buffer.from(`TDCK1 ${String(Buffer.byteLength(header)).padStart(12, '0')}\n${header}\n`),
      heads,
      Buffer.from(text.slice(headerEnd + 1)),
    ]);
    writeFileSync(file, withHeads);
    expect(readCheckpoint(file).graph).to.deep.equal(graph);
  });

  for (const [name, damage] of [
    ['empty', () => writeFileSync(file, '')],
    ['garbage', () => writeFileSync(file, 'not a checkpoint at all')],
    ['truncated in the node section', () => truncateSync(file, readFileSync(file).length - 5)],
    ['truncated in the header', () => truncateSync(file, 30)],
    ['holding node offsets that do not fall on line ends', () => writeFileSync(file, readFileSync(file, 'utf8').replace(/"ends":\[(\d+)/, (_, end) => `"ends":[${Number(end) - 3}`))],
  ] as const) {
    it(`refuses a checkpoint that is ${name} with STORAGE_ERROR`, () => {
      writeFileSync(file, encodeCheckpoint(graphOf(10), ledger));
      damage();
      expect(() => readCheckpoint(file)).to.throw().that.satisfies((error: { code: string; details: { cause: string } }) => {
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
      writeFileSync(file, fixNodeOffsets(text));
      expect(() => readCheckpoint(file)).to.throw().that.satisfies((error: { code: string; message: string }) => {
        return error.code === 'STORAGE_ERROR' && error.message.includes('T-1');
      });
    });
  }
});

/** Rewrites the header's node offsets to match the (edited) node lines, so only the edit is wrong. */
function fixNodeOffsets(text: string): string {
  const firstNewline = text.indexOf('\n');
  const headerEnd = text.indexOf('\n', firstNewline + 1);
  const header = JSON.parse(text.slice(firstNewline + 1, headerEnd));
  const lines = text.slice(headerEnd + 2).split('\n').slice(0, -1);
  let offset = 0;
  header.ends = lines.map((line) => (offset += Buffer.byteLength(line) + 1) - 1);
  const headerText = JSON.stringify(header);
  return `TDCK1 ${String(Buffer.byteLength(headerText)).padStart(12, '0')}\n${headerText}\n\n${lines.join('\n')}\n`;
}
