import { expect } from 'chai';
import { appendFileSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeCheckpoint, readCheckpoint } from '../../adapters/checkpoint-file.js';
import { FsProjectStore, FsProjectStoreFactory } from '../../adapters/fs-project-store.js';
import { GraphDraft } from '../../domain/draft.js';
import type { State } from '../../domain/model.js';
import { NOW, addTask, newDraft, thrownBy } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

describe('FsProjectStore', () => {
  const tempDir = useTempDir();
  const open = () => new FsProjectStoreFactory(tempDir()).open('demo-1234');

  function initialized(): FsProjectStore {
    const store = open();
    store.replace({ ...newDraft().graph, log: [] });
    return store;
  }

  /** One committed transaction that creates a task (with an optional long body). */
  function commitTask(store: FsProjectStore, id: string, body = ''): void {
    store.transact((graph) => {
      const draft = new GraphDraft(graph, NOW, 'alice');
      addTask(draft, id, { definition: body });
      return { result: null, changes: draft.changes() };
    });
  }

  /** Like commitTask, for a writer that looks at every node first (as status-like rules do). */
  function commitTaskReadingAll(store: FsProjectStore, id: string): void {
    store.transact((graph) => {
      Object.values(graph.nodes);
      const draft = new GraphDraft(graph, NOW, 'alice');
      addTask(draft, id);
      return { result: null, changes: draft.changes() };
    });
  }

  const state = (store: FsProjectStore): State => store.readState((value) => JSON.parse(JSON.stringify(value)));
  const file = (name: string) => path.join(tempDir(), 'projects', 'demo-1234', name);
  /** The checkpoint's content as one plain object: the graph and its ledger position. */
  function checkpointAsJson(): Record<string, any> {
    const checkpoint = readCheckpoint(file('tasks.json'));
    try {
      return { ...JSON.parse(JSON.stringify(checkpoint.graph)), ledger: checkpoint.ledger };
    } finally {
      checkpoint.close();
    }
  }
  const ledgerName = () => readdirSync(path.dirname(file('x'))).find((name) => name.startsWith('ledger.'))!;
  const ledger = () => file(ledgerName());

  it('lives in <home>/projects/<project_id>/ and does not exist before its first write', () => {
    const sut = open();
    expect(sut.location).to.equal(path.join(tempDir(), 'projects', 'demo-1234'));
    expect(sut.exists()).to.equal(false);
    expect(thrownBy(() => sut.readGraph(() => null))).to.deep.include({ code: 'STORAGE_ERROR' });
  });

  it('reloads exactly what was committed, log included, from a fresh instance', () => {
    const sut = initialized();
    commitTask(sut, 'T1');
    commitTask(sut, 'T2');
    const reloaded = state(open());
    expect(reloaded).to.deep.equal(state(sut));
    expect(Object.keys(reloaded.nodes)).to.deep.equal(['T1', 'T2']);
    expect(reloaded.log.map((entry) => entry.node)).to.deep.equal(['T1', 'T2']);
    expect(reloaded.revision).to.equal(2);
  });

  it('writes nothing when a transaction has no changes, and nothing when it throws', () => {
    const sut = initialized();
    const before = readFileSync(ledger());
    sut.transact(() => ({ result: null, changes: null }));
    expect(() =>
      sut.transact((graph) => {
        addTask(new GraphDraft(graph, NOW, 'alice'), 'T1');
        throw new Error('rule broken');
      }),
    ).to.throw('rule broken');
    expect(readFileSync(ledger())).to.deep.equal(before);
    expect(state(open()).nodes).to.deep.equal({});
  });

  it('ignores a torn last ledger line, and the next writer cuts it off', () => {
    const sut = initialized();
    commitTask(sut, 'T1');
    const committed = statSync(ledger()).size;
    appendFileSync(ledger(), '{"revision":2,"log":[{"op":"half');
    expect(state(open()).revision).to.equal(1);
    commitTask(open(), 'T2');
    const lines = readFileSync(ledger(), 'utf8').slice(committed).split('\n');
    expect(lines).to.have.length(2);
    expect(JSON.parse(lines[0]!).log[0].node).to.equal('T2');
    expect(Object.keys(state(open()).nodes)).to.deep.equal(['T1', 'T2']);
  });

  it('writes a checkpoint once the ledger tail is long, and still loads the same state', () => {
    const sut = initialized();
    const checkpointBefore = checkpointAsJson();
    for (let i = 0; i < 6; i++) commitTask(sut, `T${i}`, 'x'.repeat(64 * 1024));
    const checkpoint = checkpointAsJson();
    expect(checkpoint.ledger.bytes).to.be.greaterThan(checkpointBefore.ledger.bytes);
    expect(Object.keys(checkpoint.nodes).length).to.be.greaterThan(0);
    const reloaded = state(open());
    expect(Object.keys(reloaded.nodes)).to.have.length(6);
    expect(reloaded.log).to.have.length(6);
    expect(reloaded.revision).to.equal(6);
  });

  it('replace() starts a new ledger generation and removes the old one', () => {
    const sut = initialized();
    commitTask(sut, 'T1');
    expect(ledgerName()).to.equal('ledger.1.jsonl');
    sut.replace({ ...newDraft().graph, log: [] });
    expect(ledgerName()).to.equal('ledger.2.jsonl');
    expect(readdirSync(path.dirname(ledger())).filter((name) => name.startsWith('ledger.'))).to.have.length(1);
    expect(state(open()).nodes).to.deep.equal({});
  });

  describe('unreadable state is STORAGE_ERROR with the cause, never a crash', () => {
    const cases: Array<[string, () => void, string]> = [
      ['an empty tasks.json', () => writeFileSync(file('tasks.json'), ''), 'EINVALID'],
      ['garbage in tasks.json', () => writeFileSync(file('tasks.json'), '\u0000garbage{'), 'EINVALID'],
      ['a JSON array', () => writeFileSync(file('tasks.json'), '[]'), 'EINVALID'],
      ['another schema version', () => rewriteCheckpoint((value) => ({ ...value, version: 2 })), 'EINVALID'],
      ['a missing collection', () => rewriteCheckpoint(({ edges: _edges, ...value }) => value), 'EINVALID'],
      ['a malformed edge', () => rewriteCheckpoint((value) => ({ ...value, edges: [{ from: 'a', to: 'b', type: 'NOPE' }] })), 'EINVALID'],
      ['a node keyed by another id', () => rewriteCheckpoint((value) => ({ ...value, nodes: { T9: { id: 'T8', kind: 'knowledge' } } })), 'EINVALID'],
      ['a missing ledger reference', () => rewriteCheckpoint(({ ledger: _ledger, ...value }) => value), 'EINVALID'],
      ['a ledger shorter than the checkpoint says', () => truncateSync(ledger(), 3), 'EINVALID'],
      ['a missing ledger', () => rewriteCheckpoint((value) => ({ ...value, ledger: { file: 'ledger.9.jsonl', bytes: 0 } })), 'ENOENT'],
      ['a committed ledger line that is not JSON', () => appendFileSync(ledger(), 'not json\n'), 'EINVALID'],
      ['a committed ledger line of the wrong shape', () => appendFileSync(ledger(), '{"revision":5,"log":[]}\n'), 'EINVALID'],
      ['a committed ledger line out of order', () => appendFileSync(ledger(), '{"revision":0,"log":[],"nodes":{},"edges":[],"initiatives":{}}\n'), 'EINVALID'],
    ];

    function rewriteCheckpoint(change: (value: Record<string, any>) => Record<string, any>): void {
      const { ledger: changedLedger, ...graph } = change(checkpointAsJson());
      writeFileSync(file('tasks.json'), encodeCheckpoint(graph as never, changedLedger, null));
    }

    for (const [name, damage, cause] of cases) {
      it(name, () => {
        const sut = initialized();
        commitTask(sut, 'T1');
        damage();
        // Nodes load lazily: a malformed one is found when read, so the read enumerates them.
        const error = thrownBy(() => open().readState((value) => Object.values(value.nodes)));
        expect(error.code).to.equal('STORAGE_ERROR');
        expect(error.details.cause).to.equal(cause);
        expect(error.details.path).to.be.a('string');
        const failedWrite = thrownBy(() => commitTaskReadingAll(open(), 'T2'));
        expect(failedWrite.code).to.equal('STORAGE_ERROR');
      });
    }
  });
});
