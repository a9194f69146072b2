import { expect } from 'chai';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sinon from 'sinon';
import { bufferSource, checkpointPosition } from '../../adapters/checkpoint-file.js';
import { stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { FsProjectStoreFactory, type FsProjectStore } from '../../adapters/fs-project-store.js';
import { encodeRecord, readRecords } from '../../adapters/ledger-records.js';
import { SlotTable } from '../../adapters/node-slots.js';
import type { ChangeSet } from '../../domain/change-set.js';
import { nodeContext } from '../../domain/context.js';
import { GraphDraft } from '../../domain/draft.js';
import { accept, addNote, cancel, deprecateKnowledge, resolve, submit, take } from '../../domain/lifecycle.js';
import { plainGraph } from '../../domain/node-map.js';
import { projectState } from '../../domain/project-state.js';
import { statusReport } from '../../domain/status-report.js';
import { updateNode } from '../../domain/update.js';
import type { Graph } from '../../domain/model.js';
import { NOW, chainedDraft } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

/**
 * A ledger record keeps where the nodes it changes are in the checkpoint its writer read
 * (ledger-records.ts, CheckpointPositions), so that a load replaying it finds a changed node's
 * saved bucket and endpoints entry without looking the node up again (issue 28). Those positions
 * never change an answer: the same tails read with them, without them, and with them wrong or
 * damaged give the same `status`, `context` and `take` as the state derived afresh.
 */
describe('checkpoint positions kept in ledger records', function () {
  this.timeout(120_000);
  const tempDir = useTempDir();
  const CHAINS = 30;
  const LENGTH = 6;
  const PROJECT = 'demo-1234';
  const stateDir = (root: string) => path.join(root, 'projects', PROJECT);
  const open = (root: string) => new FsProjectStoreFactory(root, stateDirectoryLock).open(PROJECT);

  /** Chains of tasks behind gates, knowledge scoped to each chain, checkpointed with no tail. */
  async function project(root: string): Promise<FsProjectStore> {
    const draft = chainedDraft(CHAINS, LENGTH);
    const store = open(root);
    await store.replace({ ...plainGraph(draft.graph), log: [] });
    return store;
  }

  /** A step of the tail on a random node: one that does not apply to the node's state changes nothing. */
  const STEPS: ((work: GraphDraft, chain: number, step: number) => unknown)[] = [
    (work, chain, step) => take(work, `T-${chain}-${step}`),
    (work, chain, step) => submit(work, `T-${chain}-${step}`, 'done'),
    (work, chain, step) => accept(work, `T-${chain}-${step}`),
    (work, chain) => resolve(work, `G-${chain}`, 'go', 'why'),
    (work, chain, step) => addNote(work, step % 2 ? `K-${chain}` : `T-${chain}-${step}`, 'a note'),
    (work, chain, step) => updateNode(work, `T-${chain}-${step}`, { title: `retitled ${chain}-${step}` }, { allowUnregisteredInitiative: true }),
    (work, chain, step) => cancel(work, `T-${chain}-${step}`, 'not needed'),
    (work, chain) => deprecateKnowledge(work, `K-${chain}`, 'stale'),
  ];

  /** A seeded tail of `count` commits through the store (each a new store, as one command line each). */
  async function tail(root: string, seed: number, count: number): Promise<void> {
    let state = seed;
    const next = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    for (let commit = 0; commit < count; commit++) {
      const [kind, chain, step] = [next(STEPS.length), next(CHAINS), next(LENGTH)];
      await open(root).transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        try {
          STEPS[kind]!(work, chain, step);
        } catch {
          work.rollback();
          return { result: null, changes: null };
        }
        return { result: null, changes: work.changes() };
      });
    }
  }

  /** Rewrites every record past the checkpoint with `change` applied to its change set (each re-encoded with its own checksum). */
  function rewriteTail(root: string, change: (record: ChangeSet & { checkpoint_positions?: unknown }) => void): void {
    const dir = stateDir(root);
    const ledger = checkpointPosition(bufferSource(readFileSync(path.join(dir, 'tasks.json'))))!;
    const ledgerPath = path.join(dir, ledger.file);
    const bytes = readFileSync(ledgerPath);
    const { records } = readRecords(bytes.subarray(ledger.bytes), ledgerPath);
    for (const record of records) change(record as ChangeSet & { checkpoint_positions?: unknown });
    writeFileSync(ledgerPath, Buffer.concat([bytes.subarray(0, ledger.bytes), ...records.map((record) => encodeRecord(record))]));
  }

  /** What the command line answers from `root`: status (limited and whole), context of some nodes, and a take of each ready task it lists first. */
  async function answers(root: string): Promise<{ answers: unknown; fresh: unknown }> {
    const store = open(root);
    const ask = (graph: Graph) => {
      const view = new GraphDraft(graph, NOW, null);
      const status = statusReport(view, NOW, { staleMs: 1000, limit: 20, all: false });
      const whole = statusReport(view, NOW, { staleMs: 1000, limit: Number.MAX_SAFE_INTEGER, all: true });
      const contexts = ['T-0-1', 'T-3-2', 'T-7-0', 'G-4'].map((id) => nodeContext(view, view.node(id)!, NOW, { agent: null, staleMs: 1000 }));
      return JSON.stringify({ status, whole, contexts });
    };
    const read = await store.readGraph((graph) => ({ answer: ask(graph), fresh: ask(projectState(structuredClone(plainGraph(graph)))) }));
    const ready = (JSON.parse(read.answer) as { status: { tasks: { ready?: { id: string }[] } } }).status.tasks.ready ?? [];
    const taken = ready.length === 0 ? null : await open(root).transact((graph) => {
      const work = new GraphDraft(graph, NOW, 'carol');
      const result = take(work, ready[0]!.id);
      return { result: JSON.stringify(result), changes: work.changes() };
    });
    return { answers: { read: read.answer, taken }, fresh: read.fresh };
  }

  /** Record `record`'s positions changed by `change`. */
  const positionsOf = (record: ChangeSet & { checkpoint_positions?: unknown }, change: (position: number) => number) => {
    const at = (record.checkpoint_positions as { at: (string | number)[] } | undefined)?.at ?? [];
    for (let index = 1; index < at.length; index += 2) at[index] = change(at[index] as number);
  };

  const VARIANTS: Record<string, (record: ChangeSet & { checkpoint_positions?: unknown }) => void> = {
    'without positions (an earlier release\'s records)': (record) => delete record.checkpoint_positions,
    'each position one off': (record) => positionsOf(record, (position) => position + 1),
    'each node given position 0': (record) => positionsOf(record, () => 0),
    'past the last node': (record) => positionsOf(record, () => 1_000_000),
    'rotated among the record\'s nodes (each another node\'s)': (record) => {
      const at = (record.checkpoint_positions as { at: (string | number)[] } | undefined)?.at ?? [];
      const positions = at.filter((_, index) => index % 2 === 1);
      for (let index = 1; index < at.length; index += 2) at[index] = positions[((index - 1) / 2 + 1) % positions.length]!;
    },
    'each id listed again with a wrong position': (record) => {
      const at = (record.checkpoint_positions as { at: (string | number)[] } | undefined)?.at ?? [];
      for (const [index, value] of [...at.entries()]) if (index % 2 === 1) at.push(at[index - 1]!, (value as number) + 7);
    },
    'kept for another checkpoint': (record) => {
      const kept = record.checkpoint_positions as { of?: string } | undefined;
      if (kept) kept.of = `${kept.of}x`;
    },
    'pairs that are not an id and a position': (record) => {
      if (record.checkpoint_positions) (record.checkpoint_positions as { at: unknown[] }).at = ['T-0-0', -1, 5, 'T-0-1', 'T-0-2', 1.5, 'T-0-3', '4', null, 2];
    },
    'malformed': (record) => {
      if (record.checkpoint_positions) record.checkpoint_positions = { of: 3, at: { 'T-0-0': -1 } };
    },
  };

  /**
   * A commit whose note (about 40 KB) takes the tail past the threshold, so that it writes a new
   * checkpoint from the graph it read: what that rewrite carries on is answered from next.
   */
  async function rewriteCheckpoint(root: string): Promise<void> {
    const before = checkpointPosition(bufferSource(readFileSync(path.join(stateDir(root), 'tasks.json'))))!.bytes;
    await open(root).transact((graph) => {
      const work = new GraphDraft(graph, NOW, 'bob');
      addNote(work, 'T-2-2', 'x'.repeat(40_000));
      return { result: null, changes: work.changes() };
    });
    expect(checkpointPosition(bufferSource(readFileSync(path.join(stateDir(root), 'tasks.json'))))!.bytes).to.be.greaterThan(before);
  }

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: a random tail read with its positions, without them, and with them wrong or damaged answers as derived afresh, before and after a checkpoint rewrite`, async () => {
      const written = path.join(tempDir(), 'written');
      await project(written);
      await tail(written, seed, 80);
      const { records } = readRecords(readFileSync(path.join(stateDir(written), 'ledger.1.jsonl')), 'ledger');
      expect(records.filter((record) => 'checkpoint_positions' in record).length).to.be.at.least(8);
      const base = path.join(tempDir(), 'base');
      cpSync(written, base, { recursive: true });
      const expected = await answers(base);
      expect(expected.answers).to.have.nested.property('read', expected.fresh);
      await rewriteCheckpoint(base);
      const rewritten = await answers(base);
      expect(rewritten.answers).to.have.nested.property('read', rewritten.fresh);
      for (const [name, change] of Object.entries(VARIANTS)) {
        const root = path.join(tempDir(), name.replace(/\W+/g, '-'));
        cpSync(written, root, { recursive: true });
        rewriteTail(root, change);
        expect(await answers(root), name).to.deep.equal(expected);
        // The rewrite reads the graph those positions were taken for: what it saves answers as the undamaged tail's.
        await rewriteCheckpoint(root);
        expect(await answers(root), `${name}, rewritten`).to.deep.equal(rewritten);
      }
    });
  }

  it('status looks none of the changed nodes up in the slot table when their records keep their positions', async () => {
    const root = path.join(tempDir(), 'lookups');
    await project(root);
    for (const [kind, chain, step] of [[0, 0, 0], [1, 0, 0], [2, 0, 0], [4, 3, 1], [5, 5, 2], [7, 6, 0]] as const) {
      await open(root).transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'bob');
        STEPS[kind]!(work, chain, step);
        return { result: null, changes: work.changes() };
      });
    }
    // Nodes the records write whole (K-3's record appends a note, which the replay reads the node to apply: it is looked up).
    const changed = ['T-0-0', 'T-5-2', 'K-6'];
    const lookedUp = async () => {
      const candidates = sinon.spy(SlotTable.prototype, 'candidates');
      try {
        await open(root).readGraph((graph) => statusReport(new GraphDraft(graph, NOW, null), NOW, { staleMs: 1000, limit: 20, all: false }));
        return candidates.getCalls().map((call) => call.args[0] as string);
      } finally {
        candidates.restore();
      }
    };
    const withPositions = await lookedUp();
    expect(withPositions.filter((id) => changed.includes(id))).to.deep.equal([]);
    // The same tail without them (as an earlier release writes it): each changed node is looked up.
    rewriteTail(root, (record) => delete record.checkpoint_positions);
    expect(new Set((await lookedUp()).filter((id) => changed.includes(id)))).to.deep.equal(new Set(changed));
  });
});
