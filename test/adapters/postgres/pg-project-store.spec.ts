import { expect } from 'chai';
import { openPool } from '../../../adapters/postgres/pg-pool.js';
import { PgProjectStoreFactory, type PgProjectStore } from '../../../adapters/postgres/pg-project-store.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from '../../../adapters/postgres/pg-schema.js';
import { GraphDraft } from '../../../domain/draft.js';
import type { Graph, State } from '../../../domain/model.js';
import { rejectionOf } from '../../support/failures.js';
import { NOW, addTask } from '../../support/graphs.js';
import { freshDatabase, testPostgres, useTwoProcesses } from '../../support/postgres.js';
import { sampleState } from '../../support/states.js';

/** Two processes on one database: each has its own pool and its own stores (and so its own cached graph). */
describe('PgProjectStore across processes', function () {
  this.timeout(60_000);
  const db = useTwoProcesses((store) => store.replace(sampleState()));

  const change = (store: PgProjectStore, edit: (draft: GraphDraft) => void, agent = 'alice') =>
    store.transact((graph) => {
      const draft = new GraphDraft(graph, NOW, agent);
      edit(draft);
      return { result: graph.revision, changes: draft.changes() };
    });
  // A callback reads the store's state in memory, which later commits change: what outlives the call is copied.
  const stateOf = (store: PgProjectStore): Promise<State> => store.readState((state) => structuredClone(state));
  const graphOf = (store: PgProjectStore): Promise<Graph> => store.readGraph((graph) => structuredClone(graph));

  it('catches up with nodes, appended notes, edge changes and initiatives committed by another process', async () => {
    await graphOf(db.second); // the second process now holds the graph as it was
    await change(db.first, (draft) => addTask(draft, 'T-2'));
    await change(db.first, (draft) => {
      draft.appendNote(draft.requireNode('T-1'), { at: NOW, by: 'alice', text: 'one note, not the node' });
      draft.record({ op: 'add-note', node: 'T-1' });
    });
    await change(db.first, (draft) => {
      draft.addEdge({ from: 'T-1', to: 'T-2', type: 'BLOCKS' });
      draft.putInitiative('later', { desc: 'next', created_at: NOW });
      draft.record({ op: 'link', node: 'T-2' });
    });
    expect(await stateOf(db.second)).to.deep.equal(await stateOf(db.first));
    await change(db.second, (draft) => {
      draft.removeEdge({ from: 'T-1', to: 'T-2', type: 'BLOCKS' });
      draft.record({ op: 'unlink', node: 'T-2' });
    });
    expect(await stateOf(db.first)).to.deep.equal(await stateOf(db.second));
    // A third process, with nothing cached, loads the same from the rows.
    const third = openPool(db.url);
    db.pools.push(third);
    expect(await stateOf(new PgProjectStoreFactory(third).open('p'))).to.deep.equal(await stateOf(db.first));
  });

  it('stores a note appended to a node as one row, and keeps key order as written', async () => {
    await change(db.first, (draft) => {
      draft.appendNote(draft.requireNode('T-1'), { at: NOW, by: 'alice', text: 'n' });
      draft.record({ op: 'add-note', node: 'T-1' });
    });
    const rows = testPostgres().sql(dbName(db.url), "SELECT count(*) FROM taskdag_notes WHERE project = 'p'");
    expect(rows.trim()).to.equal('1');
    const node = (await graphOf(db.second)).nodes['T-1']!;
    expect(Object.keys(node)).to.deep.equal(Object.keys(sampleState().nodes['T-1']!));
  });

  it('a whole replacement by one process is seen whole by the other (a new incarnation)', async () => {
    await graphOf(db.second);
    const next = { ...sampleState(), fence_generation: sampleState().fence_generation + 1 };
    delete next.nodes['K-1'];
    next.edges = next.edges.filter((edge) => edge.from !== 'K-1' && edge.to !== 'K-1');
    await db.first.replace(next);
    expect(Object.keys((await graphOf(db.second)).nodes)).not.to.include('K-1');
    expect(await stateOf(db.second)).to.deep.equal(await stateOf(db.first));
  });

  it('claims race between processes with one winner: commits of both are serialized by the project row', async () => {
    await change(db.first, (draft) => addTask(draft, 'T-9'));
    const take = (store: PgProjectStore, agent: string) =>
      store.transact((graph) => {
        const node = graph.nodes['T-9']!;
        if (node.kind !== 'resolvable' || node.subkind !== 'task' || node.claim) return { result: false, changes: null };
        const draft = new GraphDraft(graph, NOW, agent);
        draft.putNode({ ...node, status: 'in_progress', claim: { by: agent, at: NOW } });
        draft.record({ op: 'take', node: 'T-9' });
        return { result: true, changes: draft.changes() };
      });
    const results = await Promise.all(Array.from({ length: 16 }, (_, index) => take(index % 2 ? db.first : db.second, `agent-${index}`)));
    expect(results.filter(Boolean)).to.have.length(1);
    expect((await stateOf(db.first)).log.filter((entry) => entry.op === 'take')).to.have.length(1);
  });

  it('a failed transaction leaves the graph in hand and the rows as they were', async () => {
    const before = await stateOf(db.first);
    const failure = await rejectionOf<Error>(() =>
      db.first.transact((graph) => {
        addTask(new GraphDraft(graph, NOW, 'alice'), 'T-7');
        throw new Error('rule broken');
      }),
    );
    expect(failure.message).to.equal('rule broken');
    expect(await stateOf(db.first)).to.deep.equal(before);
    expect(await stateOf(db.second)).to.deep.equal(before);
  });

  it('keeps working after the database ends every connection (a restart, a failover): the pool connects again', async () => {
    // Several idle connections, all ended at once: each is found dead in turn.
    await Promise.all(Array.from({ length: 8 }, () => graphOf(db.first)));
    await db.pools[1]!.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'taskdag' AND pid <> pg_backend_pid()");
    const revision = await change(db.first, (draft) => addTask(draft, 'T-5'));
    expect((await graphOf(db.first)).revision).to.equal(revision);
    expect(Object.keys((await graphOf(db.second)).nodes)).to.include('T-5');
  });

  it('a commit whose database fails is STORAGE_ERROR with the SQLSTATE, and commits nothing', async () => {
    const before = await stateOf(db.first);
    testPostgres().sql(dbName(db.url), 'ALTER TABLE taskdag_log ADD CONSTRAINT no_more CHECK (seq < 0) NOT VALID');
    const error = await rejectionOf(() => change(db.first, (draft) => addTask(draft, 'T-8')));
    expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(error.details.cause).to.equal('23514');
    expect(await stateOf(db.second)).to.deep.equal(before);
    expect(await stateOf(db.first)).to.deep.equal(before);
  });
});

describe('PostgreSQL schema migrations', function () {
  this.timeout(60_000);

  it('applies each migration once, even when several processes start together, and reports none the second time', async () => {
    const url = freshDatabase();
    const pools = [openPool(url), openPool(url), openPool(url)];
    try {
      expect(await schemaVersion(pools[0]!)).to.equal(0);
      const applied = await Promise.all(pools.map((pool) => migrate(pool)));
      // Each once, whichever process applied it: with more than two, processes may take turns.
      expect(applied.flat().sort((a, b) => a - b)).to.deep.equal(Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1));
      expect(await migrate(pools[0]!)).to.deep.equal([]);
      expect(await schemaVersion(pools[1]!)).to.equal(SCHEMA_VERSION);
    } finally {
      for (const pool of pools) await pool.end();
    }
  });

  it('refuses a database whose schema is newer than this program knows, changing nothing', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    try {
      await migrate(pool);
      await pool.query('INSERT INTO taskdag_schema (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
      const error = await rejectionOf(() => migrate(pool));
      expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
      expect(error.details).to.deep.include({ cause: 'ESCHEMA', schema_version: SCHEMA_VERSION + 1 });
      expect(await schemaVersion(pool)).to.equal(SCHEMA_VERSION + 1);
    } finally {
      await pool.end();
    }
  });
});

function dbName(url: string): string {
  return new URL(url).pathname.slice(1);
}
