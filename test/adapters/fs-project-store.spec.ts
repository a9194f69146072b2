import { edgesOf, nodeIds, nodeOf, plainGraph, plainNodes } from '../../domain/node-map.js';
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sinon from 'sinon';
import * as checkpointFile from '../../adapters/checkpoint-file.js';
import { FlockProjectLock, stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { nodeFileSystem as files } from '../../adapters/file-system.js';
import { FsProjectStore, FsProjectStoreFactory, KeptStates, checkpointThreshold, type StoreWarning } from '../../adapters/fs-project-store.js';
import { encodeRecord } from '../../adapters/ledger-records.js';
import type { ChangeSet } from '../../domain/change-set.js';
import type { FileSystem } from '../../adapters/file-system.js';
import { GraphDraft } from '../../domain/draft.js';
import { DomainError } from '../../domain/errors.js';
import { stateProblem } from '../../domain/state-shape.js';
import { addNote, take as takeTask } from '../../domain/lifecycle.js';
import { nextTask, rankReadyTasks } from '../../domain/next-task.js';
import type { ProjectState } from '../../domain/project-state.js';
import type { State, TaskNode } from '../../domain/model.js';
import { NOW, addTask, newDraft } from '../support/graphs.js';
import { readCheckpointJson, writeCheckpointJson } from '../support/checkpoint-json.js';
import { rejectionOf } from '../support/failures.js';
import { useTempDir } from '../support/temp-dir.js';
import { LocalDispatcher } from '../../application/dispatcher.js';
import { historyOf } from '../../domain/history.js';
import { composeServices, fileStores, projectsOnly } from '../../entrypoints/compose.js';

/** What only the file store does (its files, generations, damage); shared behaviour is in project-store.contract.spec.ts. */
/** The tasks a transaction of `store` sees, committing one more task, `id`. */
function seenWhileAdding(store: FsProjectStore, id: string): Promise<string[]> {
  return store.transact((graph) => {
    const seen = nodeIds(graph).sort();
    const draft = new GraphDraft(graph, NOW, 'bob');
    addTask(draft, id);
    return { result: seen, changes: draft.changes() };
  });
}

describe('FsProjectStore', () => {
  const tempDir = useTempDir();
  const open = () => new FsProjectStoreFactory(tempDir(), stateDirectoryLock).open('demo-1234');

  async function initialized(): Promise<FsProjectStore> {
    const store = open();
    await store.replace({ ...plainGraph(newDraft().graph), log: [] });
    return store;
  }

  /** One committed transaction that creates a task (with an optional long body). */
  function commitTask(store: FsProjectStore, id: string, body = ''): Promise<null> {
    return store.transact((graph) => {
      const draft = new GraphDraft(graph, NOW, 'alice');
      addTask(draft, id, { definition: body });
      return { result: null, changes: draft.changes() };
    });
  }

  const state = (store: FsProjectStore): Promise<State> => store.readState((value) => plainGraph(value));
  const file = (name: string) => path.join(tempDir(), 'projects', 'demo-1234', name);
  const checkpointAsJson = () => readCheckpointJson(file('tasks.json'));
  const ledgerName = () => readdirSync(path.dirname(file('x'))).find((name) => name.startsWith('ledger.'))!;
  const ledger = () => file(ledgerName());

  /**
   * Torn bytes at the ledger's end, as a writer that crashed mid-append leaves them, exactly as long
   * as the record committing task `id` (committed once to learn its length, then cut off again).
   */
  async function tornAppendAsLongAs(store: FsProjectStore, id: string): Promise<{ before: number; recordBytes: number }> {
    const before = statSync(ledger()).size;
    await commitTask(store, id);
    const recordBytes = statSync(ledger()).size - before;
    truncateSync(ledger(), before);
    appendFileSync(ledger(), '{' + 'x'.repeat(recordBytes - 1));
    return { before, recordBytes };
  }

  it("answers history from the ledger's entries that name the node, not its whole log parsed (readLogNaming)", async () => {
    const store = open();
    const draft = newDraft();
    for (let at = 0; at < 20; at++) addTask(draft, `T-${at}`);
    const log = Array.from({ length: 400 }, (_, at) => ({ revision: at + 1, at: NOW, by: 'bob', op: 'update', node: `T-${at % 20}`, ...(at % 9 === 0 ? { note: `see T-${at % 7}` } : {}) }));
    await store.replace({ ...plainGraph(draft.graph), revision: 400, log });
    for (const note of ['for T-3: done', 'T-30 is not T-3']) {
      await store.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'alice');
        addNote(work, 'T-5', note);
        return { result: null, changes: work.changes() };
      });
    }
    const dispatcher = new LocalDispatcher(composeServices(fileStores(tempDir()), projectsOnly(tempDir(), 'this test')));
    const whole = sinon.spy(FsProjectStore.prototype, 'readState');
    const naming = sinon.spy(FsProjectStore.prototype, 'readLogNaming');
    const parse = sinon.spy(JSON, 'parse');
    let answer: unknown;
    try {
      answer = await dispatcher.dispatch({ project: 'demo-1234', operation: 'history', args: { id: 'T-3', limit: 1000 }, agent: null });
    } finally {
      parse.restore();
    }
    expect(whole.callCount).to.equal(0);
    expect(naming.args.map(([id]) => id)).to.deep.equal(['T-3']);
    // No parse of the 400-entry base record (about 40 KB): the checkpoint's lines and T-3's entries alone.
    expect(parse.args.every(([text]) => String(text).length < 4_000)).to.equal(true);
    const expected = historyOf((await state(store)).log, 'T-3', 1000);
    expect(answer).to.deep.equal(expected);
    expect(expected.entries.length).to.be.above(20);
  });

  describe('history index (history.<generation>.idx)', () => {
    /** The file system, counting the bytes read from ledger files. */
    function countingLedgerReads(): { files: FileSystem; ledgerBytes: () => number } {
      let ledgerBytes = 0;
      const isLedger = (name: string) => /ledger\.\d+\.jsonl$/.test(name);
      const counting: FileSystem = {
        ...files,
        read(name) {
          const bytes = files.read(name);
          if (isLedger(name)) ledgerBytes += bytes.length;
          return bytes;
        },
        readFrom(name, start) {
          const bytes = files.readFrom(name, start);
          if (isLedger(name)) ledgerBytes += bytes.length;
          return bytes;
        },
        open(name) {
          const opened = files.open(name);
          return {
            size: opened.size,
            bytes(start, end) {
              const bytes = opened.bytes(start, end);
              if (isLedger(name)) ledgerBytes += bytes.length;
              return bytes;
            },
            close: () => opened.close(),
          };
        },
      };
      return { files: counting, ledgerBytes: () => ledgerBytes };
    }

    /** A state of 200 tasks and a 3,000-entry log (about 300 KB): each task's 15 entries one after the other, every seventh a note naming the next task. */
    function stateWithLog(seed = 0): State {
      const draft = newDraft();
      for (let at = 0; at < 200; at++) addTask(draft, `T-${at}`);
      const log = Array.from({ length: 3_000 }, (_, at) => ({ revision: at + 1, at: NOW, by: 'bob', op: 'update', node: `T-${(Math.floor(at / 15) + seed) % 200}`, ...(at % 7 === 0 ? { note: `see T-${(Math.floor(at / 15) + 1) % 200}.` } : {}) }));
      return { ...plainGraph(draft.graph), revision: 3_000, log };
    }

    const historyRead = (store: FsProjectStore, id: string) => store.readLogNaming(id, (read) => historyOf(read.log, id, Number.MAX_SAFE_INTEGER));
    const wholeHistory = async (store: FsProjectStore, id: string) => historyOf((await state(store)).log, id, Number.MAX_SAFE_INTEGER);
    const indexHeader = (generation: number) => {
      const bytes = readFileSync(file(`history.${generation}.idx`));
      return { covered: bytes.readUIntBE(16, 6), count: bytes.readUInt32BE(12) };
    };

    it("reads the ledger's blocks that can name the node, not the whole ledger, and answers as the whole log", async () => {
      const location = open().location;
      const { files: counting, ledgerBytes } = countingLedgerReads();
      const store = new FsProjectStore('demo-1234', location, stateDirectoryLock(location), counting);
      await store.replace(stateWithLog());
      await store.transact((graph) => {
        const work = new GraphDraft(graph, NOW, 'alice');
        addNote(work, 'T-5', 'handed to T-12: see T-1.');
        return { result: null, changes: work.changes() };
      });
      const size = statSync(ledger()).size;
      for (const id of ['T-1', 'T-12', 'T-5', 'T-199']) {
        const before = ledgerBytes();
        const answer = await historyRead(store, id);
        expect(ledgerBytes() - before, id).to.be.below(size / 4);
        expect(answer, id).to.deep.equal(await wholeHistory(store, id));
        expect(answer.entries.length, id).to.be.above(10);
      }
    });

    it("takes the ledger tail's entries from the load that replayed it, not from a second reading, and answers as the whole log", async () => {
      const store = open();
      await store.replace(stateWithLog());
      // A tail of notes on tasks of the base log, some naming T-late, a task only the tail adds: under the 32 KiB that call for a checkpoint.
      for (let at = 0; at < 30; at++) {
        await store.transact((graph) => {
          const work = new GraphDraft(graph, NOW, 'alice');
          if (at === 10) addTask(work, 'T-late');
          addNote(work, `T-${at % 4}`, at % 3 === 0 ? `see T-late (${at})` : `note ${at}`);
          return { result: null, changes: work.changes() };
        });
      }
      expect(indexHeader(1).covered, 'no checkpoint rewrite in the tail').to.be.below(statSync(ledger()).size);
      for (const id of ['T-late', 'T-1', 'T-3']) {
        const parse = sinon.spy(JSON, 'parse');
        let answer: { id: string; entries: unknown[] };
        try {
          answer = await historyRead(store, id);
        } finally {
          parse.restore();
        }
        // The load parses each record of the tail whole; no entry of it is parsed again on its own.
        const tailEntries = parse.args.filter(([text]) => String(text).startsWith('{"revision":') && !String(text).includes('"log":') && String(text).includes('"alice"'));
        expect(tailEntries, id).to.deep.equal([]);
        expect(answer, id).to.deep.equal(await wholeHistory(store, id));
      }
      expect((await historyRead(store, 'T-late')).entries).to.have.length(11);
    });

    it('is written with each whole-state write, for its generation alone; an index of another ledger is not believed', async () => {
      const store = open();
      await store.replace(stateWithLog());
      expect(indexHeader(1).covered).to.equal(statSync(file('ledger.1.jsonl')).size);
      const first = readFileSync(file('history.1.idx'));
      await store.replace({ ...stateWithLog(1), revision: 3_001 });
      expect(existsSync(file('history.1.idx'))).to.equal(false);
      expect(indexHeader(2).covered).to.equal(statSync(file('ledger.2.jsonl')).size);
      // The first generation's index under the second's name (a restore of files by hand): its ledger's identity differs.
      writeFileSync(file('history.2.idx'), first);
      for (const id of ['T-1', 'T-12']) expect(await historyRead(store, id), id).to.deep.equal(await wholeHistory(store, id));
    });

    it('is extended by the commits that rewrite the checkpoint, so a note naming a node before it exists is found', async () => {
      const store = open();
      await store.replace(stateWithLog());
      const covered = indexHeader(1).covered;
      const commit = (work: (draft: GraphDraft) => void) =>
        store.transact((graph) => {
          const draft = new GraphDraft(graph, NOW, 'alice');
          work(draft);
          return { result: null, changes: draft.changes() };
        });
      await commit((draft) => addNote(draft, 'T-3', 'waits for T-late, not yet added'));
      // Past the checkpoint threshold (32 KiB): the commit that crosses it extends the index too.
      for (let at = 0; at < 24; at++) await commit((draft) => addNote(draft, `T-${at}`, 'x'.repeat(2_000)));
      await commit((draft) => addTask(draft, 'T-late'));
      for (let at = 0; at < 24; at++) await commit((draft) => addNote(draft, `T-${at}`, 'y'.repeat(2_000)));
      expect(indexHeader(1).covered).to.be.above(covered + 64 * 1024);
      const late = await historyRead(store, 'T-late');
      expect(late.entries.map((entry) => [entry.op, entry.node])).to.deep.equal([['add-note', 'T-3'], ['fixture', 'T-late']]);
      for (const id of ['T-late', 'T-3', 'T-1', 'T-20']) expect(await historyRead(store, id), id).to.deep.equal(await wholeHistory(store, id));
    });

    it('answers as the whole log when the index is damaged, cut or gone, and the next rewrite writes it again', async () => {
      const store = open();
      await store.replace(stateWithLog());
      const written = readFileSync(file('history.1.idx'));
      const damages: [string, Buffer | null][] = [
        ['its header', Buffer.concat([written.subarray(0, 20), Buffer.from([written[20]! ^ 1]), written.subarray(21)])],
        ['a row', Buffer.from(written.map((byte, at) => (at >= 40 && at < 20_000 ? byte ^ 0xff : byte)))],
        ['its table', Buffer.from(written.map((byte, at) => (at >= written.length - 40 ? byte ^ 0x10 : byte)))],
        ['cut', written.subarray(0, written.length - 1)],
        ['zeros', Buffer.alloc(written.length)],
        ['gone', null],
      ];
      const expected = await Promise.all(['T-1', 'T-12', 'T-404'].map((id) => wholeHistory(store, id)));
      for (const [name, bytes] of damages) {
        if (bytes) writeFileSync(file('history.1.idx'), bytes);
        else rmSync(file('history.1.idx'));
        for (const [at, id] of ['T-1', 'T-12', 'T-404'].entries()) expect(await historyRead(store, id), `${name}, ${id}`).to.deep.equal(expected[at]);
      }
      for (let at = 0; at < 24; at++) await commitTask(store, `T-more-${at}`, 'z'.repeat(2_000));
      expect(indexHeader(1).covered).to.be.above(0);
      expect(indexHeader(1).count).to.be.above(5);
    });
  });

  it('lives in <home>/projects/<project_id>/ and creates nothing, not even a lock file, to inspect', async () => {
    const sut = open();
    expect(sut.location).to.equal(path.join(tempDir(), 'projects', 'demo-1234'));
    expect(await sut.inspect()).to.deep.equal({ kind: 'absent' });
    expect(existsSync(sut.location)).to.equal(false);
  });

  it('writes nothing to the ledger when a transaction has no changes, and nothing when it throws', async () => {
    const sut = await initialized();
    const before = readFileSync(ledger());
    await sut.transact(() => ({ result: null, changes: null }));
    await rejectionOf(() =>
      sut.transact((graph) => {
        addTask(new GraphDraft(graph, NOW, 'alice'), 'T1');
        throw new Error('rule broken');
      }),
    );
    expect(readFileSync(ledger())).to.deep.equal(before);
  });

  it('ignores a torn last ledger line, and the next writer cuts it off', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    const committed = statSync(ledger()).size;
    appendFileSync(ledger(), '{"revision":2,"log":[{"op":"half');
    expect((await state(open())).revision).to.equal(1);
    await commitTask(open(), 'T2');
    const lines = readFileSync(ledger(), 'utf8').slice(committed).split('\n');
    expect(lines).to.have.length(2);
    expect(JSON.parse(lines[0]!).change.log[0].node).to.equal('T2');
    expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T1', 'T2']);
  });

  it('takes zeros ending in a newline after the last record (power lost as the file grew) for a torn write', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    const committed = statSync(ledger()).size;
    appendFileSync(ledger(), Buffer.concat([Buffer.alloc(300), Buffer.from('\n')]));
    expect((await state(open())).revision).to.equal(1);
    await commitTask(open(), 'T2');
    expect(readFileSync(ledger()).subarray(committed).includes(0)).to.equal(false);
    expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T1', 'T2']);
  });

  it('refuses damage in the middle of the ledger, with its position, and cuts nothing', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    const start = statSync(ledger()).size;
    await commitTask(sut, 'T2');
    const end = statSync(ledger()).size;
    await commitTask(sut, 'T3');
    const bytes = readFileSync(ledger());
    bytes.fill(0, start, end - 1);
    writeFileSync(ledger(), bytes);
    const error = await rejectionOf(() => open().readGraph((graph) => graph));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details).to.deep.include({ cause: 'EINVALID', offset: start, next_valid_offset: end });
    expect((await rejectionOf(() => commitTask(open(), 'T4'))).code).to.equal('STORAGE_ERROR');
    expect(readFileSync(ledger())).to.deep.equal(bytes);
  });

  it('reads without waiting for a writer that holds the lock, and sees the last committed state', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const inTransaction = new Promise<void>((resolve) => (started = resolve));
    const writer = sut.transact(async (graph) => {
      const draft = new GraphDraft(graph, NOW, 'alice');
      addTask(draft, 'T2');
      started();
      await held;
      return { result: null, changes: draft.changes() };
    });
    await inTransaction;
    const timedOut = new FlockProjectLock(path.join(sut.location, 'lock'), 100);
    expect((await rejectionOf(() => timedOut.withLock('shared', () => null))).details.cause, 'the lock is held').to.equal('ELOCKTIMEOUT');
    expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T1']);
    release();
    await writer;
    expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T1', 'T2']);
  });

  describe('a transaction loads before the lock and catches up under it', () => {
    /** A store whose lock first lets `meanwhile` (another writer) commit: what happens between a load before the lock and taking it. */
    const storeWhoseLockWaitsFor = (meanwhile: () => Promise<unknown>, underLock: { held: boolean } = { held: false }, fileSystem: FileSystem = files) => {
      const lock = stateDirectoryLock(path.join(tempDir(), 'projects', 'demo-1234'));
      let first = true;
      const slow = { withLock: async <T>(mode: 'shared' | 'exclusive', work: () => T | Promise<T>) => {
        if (first) {
          first = false;
          await meanwhile();
        }
        return lock.withLock(mode, async () => {
          underLock.held = true;
          try {
            return await work();
          } finally {
            underLock.held = false;
          }
        });
      } };
      return new FsProjectStore('demo-1234', path.join(tempDir(), 'projects', 'demo-1234'), slow, fileSystem);
    };

    it("sees the commits other writers made while it waited for the lock, and appends after them", async () => {
      const other = await initialized();
      await commitTask(other, 'T1');
      const sut = storeWhoseLockWaitsFor(async () => {
        await commitTask(other, 'T2');
        await commitTask(other, 'T3');
      });
      expect(await seenWhileAdding(sut, 'T4')).to.deep.equal(['T1', 'T2', 'T3']);
      const after = await state(open());
      expect(Object.keys(after.nodes).sort()).to.deep.equal(['T1', 'T2', 'T3', 'T4']);
      expect(after.log.map((entry) => entry.node)).to.deep.equal(['T1', 'T2', 'T3', 'T4']);
      expect(after.revision).to.equal(4);
    });

    it('reads under the lock only the ledger records appended since its load, not the checkpoint and the whole tail', async () => {
      const other = await initialized();
      await commitTask(other, 'T1');
      await commitTask(other, 'T2');
      const underLock = { held: false };
      const readsUnderLock: string[] = [];
      const watching: FileSystem = {
        ...files,
        read: (file) => (underLock.held && readsUnderLock.push(`read ${path.basename(file)}`), files.read(file)),
        readFrom: (file, start) => (underLock.held && readsUnderLock.push(`readFrom ${path.basename(file)} ${start}`), files.readFrom(file, start)),
      };
      const sizeBefore = statSync(ledger()).size;
      const sut = storeWhoseLockWaitsFor(() => commitTask(other, 'T3'), underLock, watching);
      expect(await seenWhileAdding(sut, 'T4')).to.deep.equal(['T1', 'T2', 'T3']);
      // Loading under the lock read the ledger from the checkpoint's position: the whole tail, T1 and T2 again.
      expect(readsUnderLock).to.deep.equal([`readFrom ${ledgerName()} ${sizeBefore}`]);
    });

    it("prepares what its work reads (next's ranking) before the lock, so under it only what others committed meanwhile is ranked again", async () => {
      // 20 chains of 5 tasks: a fresh ranking derives the critical path of every one of the 100.
      const draft = newDraft();
      for (let chain = 0; chain < 20; chain++) {
        for (let link = 0; link < 5; link++) addTask(draft, `T-${chain}-${link}`, {}, link === 0 ? {} : { blocked_by: [`T-${chain}-${link - 1}`] });
      }
      const other = open();
      await other.replace({ ...plainGraph(draft.graph), log: [] });
      const best = await other.readGraph((graph) => nextTask(new GraphDraft(graph, NOW, 'x'), {}, undefined)!.node.id);
      // Another agent claims the best task while this one waits for the lock.
      const sut = storeWhoseLockWaitsFor(() =>
        other.transact((graph) => {
          const theirs = new GraphDraft(graph, NOW, 'carol');
          takeTask(theirs, best);
          return { result: null, changes: theirs.changes() };
        }),
      );
      const derivations = (graph: unknown) => (graph as ProjectState).indexes.ranking.derivations;
      let prepared = 0;
      const { chosen, underLock } = await sut.transact(
        (graph) => {
          const before = derivations(graph);
          const mine = new GraphDraft(graph, NOW, 'bob');
          const chosen = nextTask(mine, {}, undefined)!.node.id;
          return { result: { chosen, underLock: derivations(graph) - before }, changes: mine.changes() };
        },
        undefined,
        (graph) => {
          rankReadyTasks(graph);
          prepared = derivations(graph);
        },
      );
      expect(prepared).to.equal(100);
      expect(chosen).to.not.equal(best);
      // The task the other agent claimed is the one change: its path alone is derived again.
      expect(underLock).to.be.at.most(2);
      expect(Object.values((await state(open())).nodes).filter((node) => (node as TaskNode).subkind === 'task' && (node as TaskNode).claim !== null).map((node) => node.id).sort()).to.deep.equal([best, chosen].sort());
    });

    it('sees a commit that cut a torn append of its own length while it waited (the ledger\'s size alone does not say nothing was appended)', async () => {
      const other = await initialized();
      await commitTask(other, 'T1');
      const { before, recordBytes } = await tornAppendAsLongAs(other, 'T2');
      // Loaded before the lock with the torn bytes; meanwhile another writer cuts them and appends T2, to the same size.
      const sut = storeWhoseLockWaitsFor(() => commitTask(other, 'T2'));
      expect(await seenWhileAdding(sut, 'T3')).to.deep.equal(['T1', 'T2']);
      expect(statSync(ledger()).size).to.be.above(before + recordBytes);
      expect(Object.keys((await state(open())).nodes).sort()).to.deep.equal(['T1', 'T2', 'T3']);
    });

    it('loads again when another writer wrote a new checkpoint, or replaced the state, while it waited', async () => {
      const other = await initialized();
      await commitTask(other, 'T1');
      // A body past the checkpoint threshold: that commit also writes a new checkpoint.
      const sut = storeWhoseLockWaitsFor(() => commitTask(other, 'T2', 'x'.repeat(300 * 1024)));
      const checkpointBefore = checkpointAsJson().ledger.bytes;
      expect(await seenWhileAdding(sut, 'T3')).to.deep.equal(['T1', 'T2']);
      expect(checkpointAsJson().ledger.bytes).to.be.above(checkpointBefore);
      const replacing = storeWhoseLockWaitsFor(() => other.replace({ ...plainGraph(newDraft().graph), fence_generation: 2, log: [] }));
      expect(await seenWhileAdding(replacing, 'T9')).to.deep.equal([]);
      expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T9']);
    });
  });

  describe('a long-lived process keeps its last transaction\'s state for the next (KeptStates, taskdag mcp)', () => {
    const location = () => path.join(tempDir(), 'projects', 'demo-1234');
    const keeping = (kept: KeptStates, fileSystem: FileSystem = files) => new FsProjectStore('demo-1234', location(), stateDirectoryLock(location()), fileSystem, false, () => {}, kept);

    it('starts the next transaction from it: reads only what others appended since, and sees it', async () => {
      const other = await initialized();
      await commitTask(other, 'T1');
      const kept = new KeptStates();
      const reads: string[] = [];
      const watching: FileSystem = {
        ...files,
        open: (file) => (reads.push(`open ${path.basename(file)}`), files.open(file)),
        readFrom: (file, start) => (reads.push(`readFrom ${path.basename(file)} ${start}`), files.readFrom(file, start)),
      };
      expect(await seenWhileAdding(keeping(kept), 'T2')).to.deep.equal(['T1']);
      const afterMine = statSync(ledger()).size;
      await commitTask(other, 'T3');
      await commitTask(other, 'T4');
      // Another store of the same process (each call is composed afresh) with the same kept states.
      expect(await seenWhileAdding(keeping(kept, watching), 'T5')).to.deep.equal(['T1', 'T2', 'T3', 'T4']);
      // No load of the checkpoint and its tail: the ledger from where its own commit ended, and under the lock nothing more.
      expect(reads.filter((read) => read.startsWith('readFrom'))).to.deep.equal([`readFrom ${ledgerName()} ${afterMine}`]);
      expect(Object.keys((await state(open())).nodes).sort()).to.deep.equal(['T1', 'T2', 'T3', 'T4', 'T5']);
    });

    it('keeps nothing from a transaction that failed: the next sees only what was committed', async () => {
      await initialized();
      const kept = new KeptStates();
      expect(await seenWhileAdding(keeping(kept), 'T1')).to.deep.equal([]);
      const failure = await rejectionOf(() =>
        keeping(kept).transact((graph) => {
          addTask(new GraphDraft(graph, NOW, 'bob'), 'T-phantom');
          throw new DomainError('INVALID_ARGUMENT', 'refused after changing the graph in hand');
        }),
      );
      expect(failure).to.be.instanceOf(DomainError);
      expect(await seenWhileAdding(keeping(kept), 'T2')).to.deep.equal(['T1']);
    });

    it('loads afresh when the state was replaced whole since', async () => {
      const other = await initialized();
      const kept = new KeptStates();
      expect(await seenWhileAdding(keeping(kept), 'T1')).to.deep.equal([]);
      await other.replace({ ...plainGraph(newDraft().graph), fence_generation: 2, log: [] });
      await commitTask(other, 'T9');
      expect(await seenWhileAdding(keeping(kept), 'T2')).to.deep.equal(['T9']);
    });
  });

  it('reads again when a whole-state rewrite removed the ledger it was reading', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    const before = { checkpoint: readFileSync(file('tasks.json')), ledger: readFileSync(file('ledger.1.jsonl')) };
    await sut.replace({ ...plainGraph(newDraft().graph), fence_generation: 2, log: [] });
    const after = { checkpoint: readFileSync(file('tasks.json')), ledger: readFileSync(file('ledger.2.jsonl')) };
    writeFileSync(file('tasks.json'), before.checkpoint);
    writeFileSync(file('ledger.1.jsonl'), before.ledger);
    rmSync(file('ledger.2.jsonl'));
    const real = files.readFrom.bind(files);
    sinon.stub(files, 'readFrom').callsFake((name: string, start: number) => {
      if (name === file('ledger.1.jsonl')) {
        // The reader has the old checkpoint; a rewrite now replaces the state and removes its ledger.
        writeFileSync(file('ledger.2.jsonl'), after.ledger);
        writeFileSync(file('tasks.json'), after.checkpoint);
        rmSync(name);
      }
      return real(name, start);
    });
    // Read within the call: the ids of a lazily read graph are read from its file, closed after it.
    const graph = await open().readGraph((value) => ({ fence_generation: value.fence_generation, ids: nodeIds(value) }));
    expect(graph).to.deep.equal({ fence_generation: 2, ids: [] });
  });

  it('grows the ledger by the note, not the node, for each note added (no quadratic growth)', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    const sizes: number[] = [];
    for (let at = 0; at < 200; at++) {
      const before = statSync(ledger()).size;
      await sut.transact((graph) => {
        const draft = new GraphDraft(graph, NOW, 'alice');
        addNote(draft, 'T1', `note ${at}`);
        return { result: null, changes: draft.changes() };
      });
      // Less the checkpoint positions the record keeps (one for T1 once a checkpoint holds it: as long for every note).
      const kept = (JSON.parse(readFileSync(ledger(), 'utf8').trimEnd().split('\n').pop()!) as { change: { checkpoint_positions?: unknown } }).change.checkpoint_positions;
      sizes.push(statSync(ledger()).size - before - (kept === undefined ? 0 : `,"checkpoint_positions":${JSON.stringify(kept)}`.length));
    }
    expect(Math.max(...sizes), `the 200th note costs what the first did: ${sizes.join(' ')}`).to.be.below(sizes[0]! + 40);
    expect((await state(open())).nodes.T1!.notes).to.have.length(200);
  });

  it('writes a checkpoint once the ledger tail is long, and still loads the same state', async () => {
    const sut = await initialized();
    const checkpointBefore = checkpointAsJson();
    for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(64 * 1024));
    const checkpoint = checkpointAsJson();
    expect(checkpoint.ledger.bytes).to.be.greaterThan(checkpointBefore.ledger.bytes);
    expect(Object.keys(checkpoint.nodes).length).to.be.greaterThan(0);
    const reloaded = await state(open());
    expect(nodeIds(reloaded)).to.have.length(6);
    expect(reloaded.log).to.have.length(6);
    expect(reloaded.revision).to.equal(6);
  });

  it('checkpoints a small graph after a short tail: every command replays at most 32 KiB of it', async () => {
    const sut = await initialized();
    const positions: number[] = [];
    for (let i = 0; i < 12; i++) {
      await commitTask(sut, `T${i}`, 'x'.repeat(8 * 1024));
      positions.push(checkpointAsJson().ledger.bytes);
    }
    const ledgerBytes = statSync(file('ledger.1.jsonl')).size;
    expect(new Set(positions).size, `checkpoint positions ${positions.join(' ')}`).to.be.greaterThan(2);
    expect(ledgerBytes - positions.at(-1)!).to.be.below(32 * 1024);
  });

  it('sets the checkpoint threshold by the checkpoint\'s size: short tails for small graphs, at most 192 KiB; a process that keeps its state (a server, a PostgreSQL process), 8 times the checkpoint within 4-16 MiB, or half of it when larger', () => {
    // sqrt(900 x checkpoint bytes): the earlier balance (1,500) scaled by what a rewrite costs now (issue 28).
    expect(checkpointThreshold(10_000, false)).to.equal(32 * 1024);
    expect(checkpointThreshold(1_600_000, false)).to.be.within(36 * 1024, 38 * 1024);
    expect(checkpointThreshold(14_500_000, false)).to.be.within(111 * 1024, 112 * 1024);
    expect(checkpointThreshold(60_000_000, false)).to.equal(192 * 1024);
    expect(checkpointThreshold(10_000, true)).to.equal(4 * 1024 * 1024);
    // A server's 1k-node project as it grows: each rewrite is paid while it serves, the replay only at a restart.
    expect(checkpointThreshold(1_000_000, true)).to.equal(8_000_000);
    expect(checkpointThreshold(2_500_000, true)).to.equal(16 * 1024 * 1024);
    expect(checkpointThreshold(8_400_000, true)).to.equal(16 * 1024 * 1024);
    expect(checkpointThreshold(20_000_000, true)).to.equal(16 * 1024 * 1024);
    expect(checkpointThreshold(60_000_000, true)).to.equal(30_000_000);
  });

  it('a hot store sees a commit another process appended while it was reading the ledger', async () => {
    await initialized();
    const before = readFileSync(ledger());
    await commitTask(open(), 'T1');
    const record = readFileSync(ledger()).subarray(before.length);
    writeFileSync(ledger(), before);
    // The other process's append lands just after the hot store read the ledger, before anything else.
    let armed = true;
    const appendingAfterRead: FileSystem = {
      ...files,
      readFrom(target, start) {
        const bytes = files.readFrom(target, start);
        if (armed && target === ledger()) {
          armed = false;
          appendFileSync(target, record);
        }
        return bytes;
      },
    };
    const hot = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, appendingAfterRead, true).open('demo-1234');
    expect(await hot.readGraph((graph) => nodeIds(graph))).to.deep.equal([]);
    expect(await hot.readGraph((graph) => nodeIds(graph))).to.deep.equal(['T1']);
  });

  it("a hot store reads again when another writer cut a torn append and appended a record of the torn bytes' length", async () => {
    const other = await initialized();
    await commitTask(other, 'T1');
    const { before, recordBytes } = await tornAppendAsLongAs(other, 'T2');
    const hot = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, files, true).open('demo-1234');
    expect(await hot.readGraph((graph) => nodeIds(graph).sort())).to.deep.equal(['T1']);
    // The other writer cuts the torn bytes and appends T2: the ledger's size is what the hot store read.
    await commitTask(other, 'T2');
    expect(statSync(ledger()).size).to.equal(before + recordBytes);
    expect(await hot.readGraph((graph) => nodeIds(graph).sort())).to.deep.equal(['T1', 'T2']);
  });

  describe('a hot store (the server) syncs its appends off the event loop', () => {
    /** A file system whose background syncs wait until the test settles them, one by one. */
    function heldSyncs() {
      const held: { settle(error?: Error): void }[] = [];
      const system: FileSystem = {
        ...files,
        syncInBackground(target) {
          return new Promise<void>((resolve, reject) => {
            held.push({
              settle(error) {
                if (error) return reject(error);
                files.sync(target);
                resolve();
              },
            });
          });
        },
      };
      return { system, held };
    }
    const turns = () => new Promise((resolve) => setTimeout(resolve, 20));
    /** Turns of the event loop until `done` holds (a background write is encoded in slices, a turn each), for at most 5 s. */
    async function until(done: () => boolean): Promise<void> {
      for (const deadline = Date.now() + 5_000; !done() && Date.now() < deadline; ) await turns();
    }
    const taskIds = (store: FsProjectStore) => store.readGraph((graph) => nodeIds(graph).sort());

    it('answers a reader only once the change it would see is durable, and serves others meanwhile', async () => {
      await initialized();
      const { system, held } = heldSyncs();
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, system, true).open('demo-1234');
      expect(await taskIds(sut)).to.deep.equal([]);
      const commit = commitTask(sut, 'T1');
      await turns();
      expect(held).to.have.length(1);
      let seen: string[] | null = null;
      const reader = taskIds(sut).then((ids) => (seen = ids));
      // The event loop goes on (timers fire), but the reader waits for the fsync.
      await turns();
      expect(seen).to.equal(null);
      held[0]!.settle();
      await commit;
      await reader;
      expect(seen).to.deep.equal(['T1']);
    });

    it('writes its checkpoint from a consistent copy off the event loop while commits go on, and the next commit renames it in (issue 24)', async () => {
      await initialized();
      const writes: { release(): Promise<void> }[] = [];
      const system: FileSystem = {
        ...files,
        writeInBackground(target, pieces, mode) {
          return new Promise<void>((resolve, reject) => writes.push({ release: () => files.writeInBackground(target, pieces, mode).then(resolve, reject) }));
        },
      };
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, system, true).open('demo-1234');
      const before = readFileSync(file('tasks.json'));
      // Six commits of 768 KiB pass the 4 MiB a hot store waits for.
      for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(768 * 1024));
      const crossedAt = statSync(ledger()).size;
      await until(() => writes.length > 0);
      expect(writes, 'the checkpoint is written in the background').to.have.length(1);
      expect(readFileSync(file('tasks.json'))).to.deep.equal(before);
      // Commits and reads go on while it is written.
      await commitTask(sut, 'T6');
      expect(await taskIds(sut)).to.deep.equal(['T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6']);
      expect(readFileSync(file('tasks.json'))).to.deep.equal(before);
      await writes[0]!.release();
      await turns();
      await commitTask(sut, 'T7');
      // The checkpoint is the graph as the commit that crossed the threshold left it, at that ledger position.
      const checkpoint = checkpointAsJson();
      expect(checkpoint.ledger).to.deep.equal({ file: ledgerName(), bytes: crossedAt });
      expect(Object.keys(checkpoint.nodes)).to.deep.equal(['T0', 'T1', 'T2', 'T3', 'T4', 'T5']);
      expect(Object.keys((await state(open())).nodes)).to.deep.equal(['T0', 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7']);
      expect(readdirSync(path.dirname(file('x'))).filter((name) => name.includes('.tmp-'))).to.deep.equal([]);
    });

    it('extends the history index after the checkpoint it writes in the background, a slice of the ledger a turn', async () => {
      await initialized();
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, files, true).open('demo-1234');
      const coveredBefore = readFileSync(file('history.1.idx')).readUIntBE(16, 6);
      // Six commits of 768 KiB pass the 4 MiB a hot store waits for, each noting the next task before it exists.
      for (let i = 0; i < 6; i++) {
        await commitTask(sut, `T${i}`, 'x'.repeat(768 * 1024));
        await sut.transact((graph) => {
          const work = new GraphDraft(graph, NOW, 'alice');
          addNote(work, `T${i}`, `next: T${i + 1}.`);
          return { result: null, changes: work.changes() };
        });
      }
      await sut.checkpointed();
      // Up to the position of the checkpoint written in the background.
      const position = checkpointAsJson().ledger.bytes as number;
      expect(position).to.be.above(4 * 1024 * 1024);
      expect(readFileSync(file('history.1.idx')).readUIntBE(16, 6)).to.be.above(coveredBefore).and.equal(position);
      for (const id of ['T2', 'T5', 'T6']) {
        const read = await sut.readLogNaming(id, (value) => historyOf(value.log, id, 100));
        expect(read, id).to.deep.equal(historyOf((await state(open())).log, id, 100));
      }
      expect(readdirSync(path.dirname(file('x'))).filter((name) => name.includes('.tmp-'))).to.deep.equal([]);
    });

    it('leaves no history index of a ledger a whole-state write removed while the index was extended in the background', async () => {
      await initialized();
      const ledgerFile = ledger();
      // The other process's whole-state write lands between the last slice and the index's write:
      // it has removed the ledger and swept the indexes of every other generation.
      const system: FileSystem = {
        ...files,
        write(target, bytes, mode) {
          if (path.basename(target).startsWith('history.1.idx.tmp-') && target.endsWith('-background')) unlinkSync(ledgerFile);
          files.write(target, bytes, mode);
        },
      };
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, system, true).open('demo-1234');
      for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(768 * 1024));
      await sut.checkpointed();
      expect(existsSync(ledgerFile), 'the ledger the test removed').to.equal(false);
      expect(readdirSync(path.dirname(file('x'))).filter((name) => name.startsWith('history.'))).to.deep.equal([]);
    });

    it('lets a reader that holds the graph across turns read nodes it had not read, while a failed transaction drops the state meanwhile', async () => {
      const draft = newDraft();
      for (let i = 0; i < 20; i++) addTask(draft, `T-seeded-${i}`);
      await open().replace({ ...plainGraph(draft.graph), log: [] });
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, files, true).open('demo-1234');
      expect(await taskIds(sut)).to.have.length(20);
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      // A read still building its answer (a take's context) when another request's transaction fails.
      const reader = sut.readGraph(async (graph) => {
        await paused;
        return nodeOf(graph, 'T-seeded-7')?.title;
      });
      await turns();
      const failure = await rejectionOf(() =>
        sut.transact(() => {
          throw new DomainError('NODE_NOT_FOUND', 'No such node', {});
        }),
      );
      expect(failure.code).to.equal('NODE_NOT_FOUND');
      resume();
      expect(await reader).to.equal(nodeOf(draft.graph, 'T-seeded-7')!.title);
    });

    it('drops a checkpoint written in the background when the state was replaced whole meanwhile', async () => {
      await initialized();
      const writes: (() => void)[] = [];
      const system: FileSystem = {
        ...files,
        writeInBackground(target, pieces, mode) {
          return new Promise<void>((resolve, reject) => writes.push(() => files.writeInBackground(target, pieces, mode).then(resolve, reject)));
        },
      };
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, system, true).open('demo-1234');
      for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(768 * 1024));
      await until(() => writes.length > 0);
      await open().replace({ ...plainGraph(newDraft().graph), revision: 50, log: [] });
      const replaced = readFileSync(file('tasks.json'));
      writes[0]!();
      await sut.checkpointed();
      expect(readFileSync(file('tasks.json'))).to.deep.equal(replaced);
      expect((await state(open())).revision).to.equal(50);
    });

    it('a failed fsync fails the commit with STORAGE_ERROR, cuts the append, and no reader ever sees the change', async () => {
      await initialized();
      const ledgerBefore = readFileSync(ledger());
      const { system, held } = heldSyncs();
      const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, system, true).open('demo-1234');
      expect(await taskIds(sut)).to.deep.equal([]);
      const commit = rejectionOf(() => commitTask(sut, 'T1'));
      await turns();
      const reader = taskIds(sut);
      held[0]!.settle(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
      const error = await commit;
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details.cause).to.equal('EIO');
      expect(await reader).to.deep.equal([]);
      expect(readFileSync(ledger())).to.deep.equal(ledgerBefore);
      expect(await taskIds(sut)).to.deep.equal([]);
    });
  });

  it('reports a checkpoint it cannot write as a warning, commits durably all the same, and writes it at a later commit', async () => {
    await initialized();
    const warnings: StoreWarning[] = [];
    let full = true;
    // A file system whose disk is full for the checkpoint's temp file only: the ledger still takes appends.
    const fullForCheckpoints: FileSystem = {
      ...files,
      write(target, data, mode) {
        if (full && path.basename(target).startsWith('tasks.json.tmp')) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        files.write(target, data, mode);
      },
    };
    const sut = new FsProjectStoreFactory(tempDir(), stateDirectoryLock, fullForCheckpoints, false, (warning) => warnings.push(warning)).open('demo-1234');
    const checkpointBefore = readFileSync(file('tasks.json'));
    for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(64 * 1024));
    expect(warnings.length).to.be.greaterThan(0);
    expect(warnings[0]).to.deep.equal({
      code: 'CHECKPOINT_WRITE_FAILED',
      message: warnings[0]!.message,
      details: { path: file('tasks.json'), cause: 'ENOSPC', project_id: 'demo-1234' },
    });
    expect(warnings[0]!.message).to.include('durable');
    expect(readFileSync(file('tasks.json'))).to.deep.equal(checkpointBefore);
    expect(Object.keys((await state(open())).nodes)).to.have.length(6);
    full = false;
    const reported = warnings.length;
    await commitTask(sut, 'T6');
    expect(warnings).to.have.length(reported);
    expect(checkpointAsJson().revision).to.equal(7);
  });

  it('keeps tasks.json one JSON document that, without its checkpoint member, is a valid schema-1 state with an empty log', async () => {
    const sut = await initialized();
    for (let i = 0; i < 6; i++) await commitTask(sut, `T${i}`, 'x'.repeat(64 * 1024));
    const { checkpoint, ...state } = JSON.parse(readFileSync(file('tasks.json'), 'utf8'));
    expect(stateProblem(state)).to.equal(null);
    expect(state.log).to.deep.equal([]);
    expect(nodeIds(state)).to.have.length.greaterThan(0);
    expect(checkpoint.ledger.file).to.equal(ledgerName());
  });

  it('writes each whole state to a new ledger generation and removes the old one', async () => {
    const sut = await initialized();
    await commitTask(sut, 'T1');
    expect(ledgerName()).to.equal('ledger.1.jsonl');
    await sut.replace({ ...plainGraph(newDraft().graph), fence_generation: 2, log: [] });
    expect(ledgerName()).to.equal('ledger.2.jsonl');
    expect(readdirSync(path.dirname(ledger())).filter((name) => name.startsWith('ledger.'))).to.have.length(1);
    expect((await state(open())).nodes).to.deep.equal({});
  });

  it('hands a rewrite an unreadable state with its text and why it does not load', async () => {
    const sut = open();
    mkdirSync(sut.location, { recursive: true });
    writeFileSync(file('tasks.json'), '{"version": 1');
    const seen = await sut.rewrite((current) => ({ result: current, state: null }));
    expect(seen.kind).to.equal('unreadable');
    if (seen.kind !== 'unreadable') return;
    expect(seen.text).to.equal('{"version": 1');
    expect(seen.error.details.cause).to.equal('EINVALID');
  });

  describe('nothing is replaced without a durable copy, and nothing goes back (issue 9)', () => {
    const fresh = (fence: number): State => ({ ...plainGraph(newDraft().graph), fence_generation: fence, log: [] });

    it('takes ledgers without a checkpoint for a damaged state, not an absent one', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      rmSync(file('tasks.json'));
      const seen = await open().inspect();
      expect(seen.kind).to.equal('unreadable');
      if (seen.kind === 'unreadable') expect(seen.reached).to.deep.equal({ revision: 1, fence_generation: 1 });
      const error = await rejectionOf(() => open().readGraph((graph) => graph));
      expect(error.details).to.deep.include({ cause: 'ENOENT', ledgers: ['ledger.1.jsonl'] });
    });

    it('snapshots an unreadable state itself, durably and under digests, when the rewrite took no snapshot', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      const ledgerBytes = readFileSync(ledger());
      rmSync(file('tasks.json'));
      await open().rewrite(() => ({ result: null, state: fresh(2) }));
      const [snapshot] = await open().snapshots.list();
      expect(snapshot!.reason).to.equal('corrupt-recovery');
      const copy = readFileSync(file(`snapshots/${snapshot!.id}.ledger.1.jsonl`));
      expect(copy).to.deep.equal(ledgerBytes);
      expect(snapshot!.raw_files).to.deep.equal([
        { name: `${snapshot!.id}.ledger.1.jsonl`, bytes: copy.length, sha256: createHash('sha256').update(copy).digest('hex') },
      ]);
    });

    it('refuses a replacement that would move the fence generation or revision back, and writes nothing', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      const before = readdirSync(sut.location).sort();
      const error = await rejectionOf(() => sut.replace({ ...fresh(1), revision: 1 }));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details.reached).to.deep.include({ revision: 1, fence_generation: 1 });
      expect(readdirSync(sut.location).sort()).to.deep.equal(before);
    });

    it('tells a replacement of an unreadable state how far its files had come (checkpoint header and ledger records)', async () => {
      const sut = await initialized();
      for (const id of ['T1', 'T2', 'T3']) await commitTask(sut, id);
      const value = readCheckpointJson(file('tasks.json'));
      writeCheckpointJson(file('tasks.json'), { ...value, fence_generation: 4, nodes: { broken: { id: 'other' } } });
      const seen = await open().inspect();
      expect(seen.kind === 'unreadable' && seen.reached).to.deep.equal({ revision: 3, fence_generation: 4 });
    });

    it('never reuses a generation name, even when the checkpoint does not load', async () => {
      const sut = await initialized();
      await sut.replace(fresh(2));
      await sut.replace(fresh(3));
      expect(ledgerName()).to.equal('ledger.3.jsonl');
      writeFileSync(file('tasks.json'), readFileSync(file('tasks.json')).subarray(0, 40));
      await open().rewrite(() => ({ result: null, state: fresh(4) }));
      expect(ledgerName()).to.equal('ledger.4.jsonl');
    });

    it('reports a bug while decoding as the bug, never as an unreadable state', async () => {
      const sut = await initialized();
      sinon.stub(checkpointFile, 'decodeCheckpoint').throws(new TypeError('x is not a function'));
      const error = await rejectionOf<Error>(() => sut.inspect());
      expect(error).to.be.instanceOf(TypeError);
      expect((await rejectionOf<Error>(() => sut.rewrite(() => ({ result: null, state: fresh(2) })))).name).to.equal('TypeError');
    });

    it('keeps state files private: 0600 files, 0700 directories', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      const current = await sut.inspect();
      if (current.kind === 'valid') await sut.snapshots.take('force-init', current, NOW);
      expect(statSync(sut.location).mode & 0o777).to.equal(0o700);
      expect(statSync(file('snapshots')).mode & 0o777).to.equal(0o700);
      for (const name of ['tasks.json', 'lock', ledgerName()]) expect(statSync(file(name)).mode & 0o777, name).to.equal(0o600);
      for (const name of readdirSync(file('snapshots'))) expect(statSync(file(`snapshots/${name}`)).mode & 0o777, name).to.equal(0o600);
    });
  });

  describe('unreadable state is STORAGE_ERROR with the cause, never a crash', () => {
    const cases: Array<[string, () => void, string]> = [
      ['an empty tasks.json', () => writeFileSync(file('tasks.json'), ''), 'EINVALID'],
      ['garbage in tasks.json', () => writeFileSync(file('tasks.json'), '\u0000garbage{'), 'EINVALID'],
      ['a JSON array', () => writeFileSync(file('tasks.json'), '[]'), 'EINVALID'],
      ['another schema version', () => rewriteCheckpoint((value) => ({ ...value, version: 2 })), 'EINVALID'],
      ['a missing collection', () => rewriteCheckpoint(({ edges: _edges, ...value }) => value), 'EINVALID'],
      ['a missing ledger reference', () => rewriteCheckpoint(({ ledger: _ledger, ...value }) => value), 'EINVALID'],
      ['a ledger shorter than the checkpoint says', () => truncateSync(ledger(), 3), 'EINVALID'],
      ['a missing ledger', () => rewriteCheckpoint((value) => ({ ...value, ledger: { file: 'ledger.9.jsonl', bytes: 0 } })), 'ENOENT'],
      ['a committed ledger record of the wrong shape', () => appendFileSync(ledger(), encodeRecord({ revision: 5, log: [] } as unknown as ChangeSet)), 'EINVALID'],
      ['a committed ledger record out of order', () => appendFileSync(ledger(), encodeRecord({ revision: 0, log: [], nodes: {}, notes: [], edges: [], initiatives: {} })), 'EINVALID'],
      ['a ledger line without a checksum before a record (pre-0.1 development ledgers)', () => appendFileSync(ledger(), Buffer.concat([Buffer.from('{"revision":5,"log":[],"nodes":{},"edges":[],"initiatives":{}}\n'), encodeRecord({ revision: 6, log: [], nodes: {}, notes: [], edges: [], initiatives: {} })])), 'EINVALID'],
    ];

    function rewriteCheckpoint(change: (value: Record<string, any>) => Record<string, any>): void {
      writeCheckpointJson(file('tasks.json'), change(checkpointAsJson()));
    }

    for (const [name, damage, cause] of cases) {
      it(name, async () => {
        const sut = await initialized();
        await commitTask(sut, 'T1');
        damage();
        const error = await rejectionOf(() => open().readState((value) => value));
        expect(error.code).to.equal('STORAGE_ERROR');
        expect(error.details.cause).to.equal(cause);
        expect(error.details.path).to.be.a('string');
        const failedWrite = await rejectionOf(() => commitTask(open(), 'T2'));
        expect(failedWrite.code).to.equal('STORAGE_ERROR');
      });
    }

    it('a damaged node is STORAGE_ERROR naming it when read; a write that does not read it keeps its bytes', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      rewriteCheckpoint((value) => ({ ...value, nodes: { ...value.nodes, T9: { id: 'T8', kind: 'knowledge' } } }));
      const damaged = readFileSync(file('tasks.json'), 'utf8').split('\n').find((line) => line.startsWith('"T9"'));
      for (const read of [() => open().readState((value) => plainNodes(value)), () => open().readGraph((graph) => nodeOf(graph, 'T9'))]) {
        const error = await rejectionOf(read);
        expect(error.code).to.equal('STORAGE_ERROR');
        expect(error.details.cause).to.equal('EINVALID');
        expect(error.message).to.include('T9');
      }
      await commitTask(open(), 'T2');
      expect(await open().readGraph((graph) => nodeOf(graph, 'T2')?.id)).to.equal('T2');
      expect(readFileSync(file('tasks.json'), 'utf8')).to.include(damaged);
    });

    it('a malformed edge is STORAGE_ERROR when the edges are read; a write that does not read them keeps their bytes', async () => {
      const sut = await initialized();
      await commitTask(sut, 'T1');
      rewriteCheckpoint((value) => ({ ...value, edges: [{ from: 'a', to: 'b', type: 'NOPE' }] }));
      const damaged = readFileSync(file('tasks.json'), 'utf8').split('\n').find((line) => line.startsWith('"edges"'))!;
      const readEdges = () => open().readGraph((graph) => edgesOf(graph).length);
      const expectRefused = async () => {
        for (const read of [readEdges, () => open().readState((value) => plainGraph(value))]) {
          const error = await rejectionOf(read);
          expect(error.code).to.equal('STORAGE_ERROR');
          expect(error.details.cause).to.equal('EINVALID');
          expect(error.message).to.include('is malformed');
        }
      };
      await expectRefused();
      await commitTask(open(), 'T2');
      expect(await open().readGraph((graph) => nodeIds(graph))).to.deep.equal(['T1', 'T2']);
      expect(readFileSync(file('tasks.json'), 'utf8')).to.include(damaged);
      await expectRefused();
    });
  });
});
