import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { memberLine } from '../../adapters/checkpoint-file.js';
import { crc32 } from '../../adapters/crc32.js';
import { HEADS_DIRECTORY_START, headsLine } from '../../adapters/heads-line.js';
import { stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { FsProjectStoreFactory, type FsProjectStore } from '../../adapters/fs-project-store.js';
import { nodeContext } from '../../domain/context.js';
import { GraphDraft } from '../../domain/draft.js';
import { take } from '../../domain/lifecycle.js';
import type { Graph } from '../../domain/model.js';
import { nodeOf, plainGraph } from '../../domain/node-map.js';
import { projectState } from '../../domain/project-state.js';
import { statusReport } from '../../domain/status-report.js';
import { searchKnowledge } from '../../domain/search.js';
import { NOW, addGate, addKnowledge, addTask, newDraft } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

/**
 * Hand edits of a checkpoint that keep it valid JSON and recompute every checksum a reader checks:
 * what the file's derived data says (the slot table, the heads line) is never trusted over what
 * its nodes say. The answer is that of the nodes, or a STORAGE_ERROR; never another node's data.
 */
describe('a checkpoint whose derived data was edited with its checksums recomputed', () => {
  const tempDir = useTempDir();
  const open = () => new FsProjectStoreFactory(tempDir(), stateDirectoryLock).open('demo-1234');
  const checkpointFile = () => path.join(tempDir(), 'projects', 'demo-1234', 'tasks.json');
  const fresh = (graph: Graph) => new GraphDraft(projectState(structuredClone(plainGraph(graph))), NOW, null);

  /** Twenty ready tasks and an open gate, checkpointed. */
  async function project(): Promise<FsProjectStore> {
    const draft = newDraft();
    for (let at = 1; at <= 20; at++) addTask(draft, `T-${at}`);
    addGate(draft, 'G-1');
    const store = open();
    await store.replace({ ...plainGraph(draft.graph), log: [] });
    return store;
  }

  /**
   * Rewrites the slot table entry of the node whose line starts at `offset` (from the node
   * section's start) to give position `position`, its bucket's CRC-32 recomputed as the writer
   * seeds it (node-slots.ts).
   */
  function moveSlotPosition(text: string, lineOffset: number, position: number): string {
    const layout = JSON.parse(/"slot_layout":(\{[^}]*\})/.exec(text)![1]!) as { buckets: number; node_bytes: number };
    const open = text.indexOf('"slots":[') + '"slots":['.length;
    const stride = 8 + 8 * 26 + 3;
    for (let bucket = 0; bucket < layout.buckets; bucket++) {
      const start = open + bucket * stride + 1;
      const body = text.slice(start + 8, start + 8 + 8 * 26);
      for (let slot = 0; slot < 8; slot++) {
        const entry = body.slice(slot * 26, slot * 26 + 26);
        if (parseInt(entry.slice(4, 12), 16) !== lineOffset || parseInt(entry.slice(12, 20), 16) === 0) continue;
        const edited = body.slice(0, slot * 26) + entry.slice(0, 20) + position.toString(16).padStart(6, '0') + body.slice(slot * 26 + 26);
        const seed = Buffer.alloc(12);
        seed.writeUInt32BE(bucket, 0);
        seed.writeUInt32BE(layout.buckets, 4);
        seed.writeUInt32BE(layout.node_bytes, 8);
        const crc = crc32(Buffer.from(edited, 'latin1'), crc32(seed)).toString(16).padStart(8, '0');
        return text.slice(0, start) + crc + edited + text.slice(start + 8 + 8 * 26);
      }
    }
    throw new Error(`no slot entry at offset ${lineOffset}`);
  }

  it("a slot entry giving a node another's position: status counts what the nodes say", async () => {
    const sut = await project();
    const text = readFileSync(checkpointFile(), 'latin1');
    const section = text.indexOf('"nodes":{\n') + '"nodes":{\n'.length;
    const ids = (JSON.parse(/"ids":(\[[^\]]*\])/.exec(text)![1]!) as string[]);
    // T-1's entry now says it sits where G-1 does: the heads line's per-node sections would be read at G-1's.
    const edited = moveSlotPosition(text, text.indexOf('\n"T-1":', section - 1) + 1 - section, ids.indexOf('G-1'));
    expect(edited).to.not.equal(text);
    writeFileSync(checkpointFile(), edited, 'latin1');
    // A commit in the ledger tail changes T-1: status then asks which saved bucket it was in.
    await sut.transact((graph) => {
      const work = new GraphDraft(graph, NOW, 'bob');
      take(work, 'T-1');
      return { result: null, changes: work.changes() };
    });
    const filters = { staleMs: 1000, limit: 5, all: true };
    const { answer, expected } = await sut.readGraph((graph) => ({ answer: statusReport(new GraphDraft(graph, NOW, null), NOW, filters), expected: statusReport(fresh(graph), NOW, filters) }));
    expect(expected.summary).to.include({ ready: 19, in_progress: 1, open_gates: 1 });
    expect(answer).to.deep.equal(expected);
  });

  /**
   * Rewrites section `name` of the heads line through `edit` (its parsed value in, the new one
   * out, written back by JSON.stringify), every other section copied as it was, the directory and
   * `heads_crc32` recomputed as a writer computes them: the edit passes every checksum.
   */
  function editHeadsSection(text: string, name: string, edit: (value: any) => unknown): string {
    return editHeadsSectionText(text, name, (section) => JSON.stringify(edit(JSON.parse(section))));
  }

  /** As `editHeadsSection`, through `edit` of the section's text. */
  function editHeadsSectionText(text: string, name: string, edit: (section: string) => string): string {
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.startsWith(HEADS_DIRECTORY_START));
    const line = Buffer.from(lines[at]!);
    const directoryEnd = line.indexOf('}', HEADS_DIRECTORY_START.length) + 1;
    const directory = JSON.parse(line.toString('utf8', HEADS_DIRECTORY_START.length, directoryEnd)) as Record<string, [string, string, string]>;
    const sections = Object.entries(directory).map(([section, [start, end]]) => {
      const bytes = line.subarray(Number(start), Number(end));
      return [section, section === name ? Buffer.from(edit(bytes.toString('utf8'))) : bytes] as [string, Buffer];
    });
    const encoding = headsLine(sections);
    let step = encoding.next();
    while (!step.done) step = encoding.next();
    lines[at] = step.value.line.toString('utf8').slice(0, -1);
    const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`).checkpoint;
    member.lines.heads = Buffer.byteLength(lines[at]!) + 1;
    member.heads_crc32 = step.value.crc;
    const lineChecksums = step.value.bounds.get('line_crc32')!;
    member.line_crc32 = [lineChecksums.start, lineChecksums.end, lineChecksums.crc];
    lines[1] = memberLine(member);
    return lines.join('\n');
  }

  /** A task and the knowledge scoped to it by tag, by domain and by nothing of it (none of the task's initiative), checkpointed. */
  async function scopedProject(): Promise<FsProjectStore> {
    const draft = newDraft();
    draft.graph.initiatives.other = { desc: 'the task', created_at: NOW };
    addTask(draft, 'T-1', { tags: ['tag-x'], domain: 'billing', initiative: 'other' });
    addKnowledge(draft, 'K-1', { scope: { domains: [], initiatives: [], tags: ['tag-x'], node_ids: [] } });
    addKnowledge(draft, 'K-2', { scope: { domains: ['billing'], initiatives: [], tags: [], node_ids: [] } });
    addKnowledge(draft, 'K-3', { scope: { domains: ['auth'], initiatives: [], tags: ['tag-y'], node_ids: [] } });
    const store = open();
    await store.replace({ ...plainGraph(draft.graph), log: [] });
    return store;
  }

  const contextOfT1 = (sut: FsProjectStore) =>
    sut.readGraph((graph) => ({
      answer: nodeContext(new GraphDraft(graph, NOW, null), nodeOf(graph, 'T-1')!, NOW, { agent: null, staleMs: 1000 }),
      expected: nodeContext(fresh(graph), nodeOf(graph, 'T-1')!, NOW, { agent: null, staleMs: 1000 }),
    }));

  it('context: a knowledge section written back without a tab before each entry is read whole, with the same matches', async () => {
    const sut = await scopedProject();
    const text = readFileSync(checkpointFile(), 'utf8');
    const edited = editHeadsSection(text, 'knowledge', (entries: unknown[]) => entries);
    expect(edited).to.not.equal(text);
    writeFileSync(checkpointFile(), edited);
    const { answer, expected } = await contextOfT1(sut);
    expect(answer).to.deep.equal(expected);
    expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-1', 'K-2']);
  });

  it('context: a scope value written with an escape in the knowledge section still matches', async () => {
    const sut = await scopedProject();
    const text = readFileSync(checkpointFile(), 'utf8');
    // The same value, escaped: its plain text is nowhere in the section.
    const edited = editHeadsSectionText(text, 'knowledge', (section) => section.replace('["tag-x"]', '["tag\\u002dx"]'));
    expect(edited).to.not.equal(text);
    writeFileSync(checkpointFile(), edited);
    const { answer, expected } = await contextOfT1(sut);
    expect(answer).to.deep.equal(expected);
    expect(answer.knowledge.map((entry) => entry.node.id)).to.deep.equal(['K-1', 'K-2']);
  });

  it('search: a knowledge line span that ends inside the line is not taken for the line', async () => {
    const draft = newDraft();
    addTask(draft, 'T-1');
    addKnowledge(draft, 'K-1', { title: 'first, second', body: 'the needle is here' });
    const sut = open();
    await sut.replace({ ...plainGraph(draft.graph), log: [] });
    const text = readFileSync(checkpointFile(), 'utf8');
    // K-1's span now ends at the comma after its title: its stored text would hold no needle.
    const edited = editHeadsSection(text, 'knowledge', (entries: unknown[][]) =>
      entries.map((entry) => {
        const [id, key] = [entry[0], entry[6] as number];
        const section = text.indexOf('"nodes":{\n') + '"nodes":{\n'.length;
        const comma = Buffer.from(text).indexOf('first,', section + key) + 'first'.length;
        return id === 'K-1' ? [...entry.slice(0, 6), key, comma - section] : entry;
      }),
    );
    expect(edited).to.not.equal(text);
    writeFileSync(checkpointFile(), edited);
    const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
    expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-1']);
  });

  it("search: a knowledge line span that starts at its key inside another node's line is not taken for the line", async () => {
    const draft = newDraft();
    // T-1's meta holds a key that reads as K-1's line key.
    addTask(draft, 'T-1', { meta: { 'K-1': { note: 'x' } } });
    addKnowledge(draft, 'K-1', { title: 'knowledge', body: 'the needle is here' });
    const sut = open();
    await sut.replace({ ...plainGraph(draft.graph), log: [] });
    const text = readFileSync(checkpointFile(), 'utf8');
    const bytes = Buffer.from(text);
    const section = bytes.indexOf('"nodes":{\n') + '"nodes":{\n'.length;
    const key = bytes.indexOf('"K-1":{"note"', section) - section;
    const end = bytes.indexOf('"x"}}', section) + 5 - section;
    const edited = editHeadsSection(text, 'knowledge', (entries: unknown[][]) => entries.map((entry) => (entry[0] === 'K-1' ? [...entry.slice(0, 6), key, end] : entry)));
    expect(edited).to.not.equal(text);
    writeFileSync(checkpointFile(), edited);
    const answer = await sut.readGraph((graph) => searchKnowledge(new GraphDraft(graph, NOW, null), 'needle', false));
    expect(answer.matches.map((match) => match.id)).to.deep.equal(['K-1']);
  });
});
