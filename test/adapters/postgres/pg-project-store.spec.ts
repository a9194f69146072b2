import { deleteNode, hasNode, nodeIds, nodeOf, plainGraph, setNode } from '../../../domain/node-map.js';
import { expect } from 'chai';
import sinon from 'sinon';
import type { Pool } from 'pg';
import { openPool } from '../../../adapters/postgres/pg-pool.js';
import { createHash, randomBytes } from 'node:crypto';
import { CHECKPOINT_PIECE_BYTES, contentPieces } from '../../../adapters/postgres/pg-checkpoint-pieces.js';
import { PgProjectStoreFactory, type PgProjectStore } from '../../../adapters/postgres/pg-project-store.js';
import { encodeCheckpoint } from '../../../adapters/checkpoint-file.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from '../../../adapters/postgres/pg-schema.js';
import { GraphDraft } from '../../../domain/draft.js';
import type { Graph, GraphNode, State } from '../../../domain/model.js';
import { rejectionOf } from '../../support/failures.js';
import { NOW, addTask } from '../../support/graphs.js';
import { freshDatabase, newestCheckpointRow, statementsOf, testPostgres, useTwoProcesses, watchStatements, writeSchema7Project } from '../../support/postgres.js';
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
  const stateOf = (store: PgProjectStore): Promise<State> => store.readState((state) => structuredClone(plainGraph(state)));
  const graphOf = (store: PgProjectStore): Promise<Graph> => store.readGraph((graph) => structuredClone(plainGraph(graph)));
  const sql = (statement: string) => testPostgres().sql(dbName(db.url), statement).trim();
  const rewriteBody = (draft: GraphDraft, id: string, body: string) => {
    draft.putNode({ ...draft.requireNode(id), body } as GraphNode);
    draft.record({ op: 'edit', node: id });
  };

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

  it('a commit on a current state is one round trip, the insert of one change set row; a node keeps its key order as written', async () => {
    await graphOf(db.first);
    const statements = statementsOf(db.pools[0]!);
    for (const id of ['T-20', 'T-21', 'T-22']) await change(db.first, (draft) => addTask(draft, id));
    await change(db.first, (draft) => {
      draft.appendNote(draft.requireNode('T-1'), { at: NOW, by: 'alice', text: 'n' });
      draft.record({ op: 'add-note', node: 'T-1' });
    });
    expect(statements()).to.equal(4);
    // The change set the state started with, and one a commit.
    expect(testPostgres().sql(dbName(db.url), "SELECT count(*) FROM taskdag_change_sets WHERE project = 'p'").trim()).to.equal('5');
    const node = nodeOf(await graphOf(db.second), 'T-1')!;
    expect(Object.keys(node)).to.deep.equal(Object.keys(sampleState().nodes['T-1']!));
  });

  it('the statements of every commit and read are prepared once a connection, by name, and then only bound', async () => {
    // One connection, so every statement below goes on it.
    const pool = openPool(db.url, 1);
    db.pools.push(pool);
    const store = new PgProjectStoreFactory(pool).open('p');
    await graphOf(store);
    for (const id of ['T-50', 'T-51']) await change(store, (draft) => addTask(draft, id));
    await graphOf(store);
    const prepared = await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name');
    expect(prepared.rows.map((row) => row.name)).to.include.members(['taskdag_append', 'taskdag_changes_since']);
  });

  it('a process with nothing in hand loads the state once for all the reads that arrive together', async () => {
    const statements = statementsOf(db.pools[1]!);
    const revisions = await Promise.all(Array.from({ length: 16 }, () => db.second.readGraph((graph) => graph.revision)));
    expect(new Set(revisions).size).to.equal(1);
    // One read-only snapshot: BEGIN, the project row, its checkpoint, the change sets after it, the plugin rows, COMMIT.
    expect(statements()).to.equal(6);
  });

  it('reads that arrive together share one check; reads that arrive while this process commits are proved current by its next append, with no statement of their own', async () => {
    await graphOf(db.first);
    const statements = statementsOf(db.pools[0]!);
    const together = await Promise.all(Array.from({ length: 8 }, () => db.first.readGraph((graph) => graph.revision)));
    expect(new Set(together).size).to.equal(1);
    expect(statements()).to.equal(1);
    const first = change(db.first, (draft) => addTask(draft, 'T-40'));
    // Its append is on its way: the reads that arrive now may not trust it, only an append sent after them.
    await new Promise((resolve) => setImmediate(resolve));
    const reads = Array.from({ length: 8 }, () => db.first.readGraph((graph) => hasNode(graph, 'T-41')));
    const second = change(db.first, (draft) => addTask(draft, 'T-41'));
    await Promise.all([first, second]);
    expect(await Promise.all(reads)).to.deep.equal(Array.from({ length: 8 }, () => true));
    expect(statements()).to.equal(3);
    // A commit by another process since: the next read here checks, and sees it.
    await change(db.second, (draft) => addTask(draft, 'T-42'));
    expect(await db.first.readGraph((graph) => hasNode(graph, 'T-42'))).to.equal(true);
    expect(statements()).to.equal(4);
  });

  it('a replaced project is saved with a checkpoint of it, as on files: a process loads it from there, replaying no change set', async () => {
    const revision = sampleState().revision;
    expect(testPostgres().sql(dbName(db.url), "SELECT revision FROM taskdag_checkpoint_manifests WHERE project = 'p'").trim()).to.equal(String(revision));
    const third = openPool(db.url);
    db.pools.push(third);
    expect(await stateOf(new PgProjectStoreFactory(third).open('p'))).to.deep.equal(await stateOf(db.first));
  });

  it('a refusal decided on a state another process has moved past is decided again on the newer state', async () => {
    await graphOf(db.second);
    await change(db.first, (draft) => addTask(draft, 'T-30'));
    // The second process has not heard of T-30: its first try fails, and fails on a state that is behind.
    const note = await db.second.transact((graph) => {
      const draft = new GraphDraft(graph, NOW, 'bob');
      draft.appendNote(draft.requireNode('T-30'), { at: NOW, by: 'bob', text: 'seen' });
      draft.record({ op: 'add-note', node: 'T-30' });
      return { result: graph.revision, changes: draft.changes(), undo: () => draft.rollback() };
    });
    expect((await stateOf(db.first)).nodes['T-30']!.notes.map((entry) => entry.text)).to.deep.equal(['seen']);
    expect(note).to.equal((await graphOf(db.first)).revision);
  });

  it('keeps periodic checkpoints, sent and received in pieces: a process with nothing in hand loads the newest one and the change sets after it', async () => {
    // Each statement's values are copied into one message on the event loop: a checkpoint of 4.8 MB goes in pieces.
    let largest = 0;
    watchStatements(db.pools[0]!, ([, values]) => {
      for (const value of Array.isArray(values) ? values : []) if (Buffer.isBuffer(value)) largest = Math.max(largest, value.length);
    });
    // Past the threshold of an empty checkpoint (4 MiB of change sets), a commit saves one.
    for (let index = 0; index < 8; index++) await change(db.first, (draft) => addTask(draft, `T-big-${index}`, { body: randomBody() }));
    await db.first.checkpointed();
    expect(sql("SELECT count(*), min(bytes) > 4 * 1024 * 1024 FROM taskdag_checkpoint_manifests WHERE project = 'p'")).to.equal('1|t');
    expect(largest).to.be.at.most(CHECKPOINT_PIECE_BYTES);
    await change(db.first, (draft) => addTask(draft, 'T-after'));
    const third = openPool(db.url);
    db.pools.push(third);
    // ...and is received in pieces too: a row is decoded in one turn of the event loop.
    let largestRow = 0;
    watchStatements(third, () => (answer) => {
      void Promise.resolve(answer)
        .then((result) => {
          for (const row of (result as { rows?: Record<string, unknown>[] } | undefined)?.rows ?? []) {
            for (const value of Object.values(row)) if (Buffer.isBuffer(value)) largestRow = Math.max(largestRow, value.length);
          }
        })
        .catch(() => undefined);
    });
    const cold = new PgProjectStoreFactory(third).open('p');
    // ...and kept in those pieces: joined, a 50k-node checkpoint was a 60 MB copy in one turn.
    const concat = sinon.spy(Buffer, 'concat');
    const loaded = await cold.readGraph((graph) => graph.revision);
    concat.restore();
    expect(loaded).to.be.greaterThan(0);
    expect(Math.max(0, ...concat.returnValues.map((joined) => joined.length))).to.be.lessThan(CHECKPOINT_PIECE_BYTES);
    expect(await stateOf(cold)).to.deep.equal(await stateOf(db.first));
    expect(largestRow).to.be.within(1, CHECKPOINT_PIECE_BYTES);
    const saved = sql("SELECT revision FROM taskdag_checkpoint_manifests WHERE project = 'p'");
    expect(Number(saved)).to.be.lessThan((await graphOf(cold)).revision);
  });

  it('saves the next checkpoint as the file server does, past 8 times the last one\'s size within 4-16 MiB of change sets: a process with nothing in hand (a restart, a takeover) replays at most that', async function () {
    // Over 16 MiB of change sets: tens of seconds on a loaded machine.
    this.timeout(180_000);
    for (let index = 0; index < 8; index++) await change(db.first, (draft) => addTask(draft, `T-big-${index}`, { body: randomBody() }));
    await db.first.checkpointed();
    const [first, firstBytes] = sql("SELECT revision || '|' || bytes FROM taskdag_checkpoint_manifests WHERE project = 'p'").split('|').map(Number);
    const threshold = Math.min(8 * firstBytes!, 16 * 1024 * 1024);
    expect(threshold).to.equal(16 * 1024 * 1024);
    const manifests = () => sql("SELECT string_agg(revision::text, ',' ORDER BY revision) FROM taskdag_checkpoint_manifests WHERE project = 'p'");
    while (manifests() === String(first)) {
      await change(db.first, (draft) => rewriteBody(draft, 'T-1', randomBody()));
      await db.first.checkpointed();
    }
    const second = Number(manifests());
    // Saved by the commit that took the change sets since the first checkpoint past the threshold, not before (4 MiB, half the checkpoint, was the rule).
    const since = (last: number) => Number(sql(`SELECT sum(octet_length(change::text)) FROM taskdag_change_sets WHERE project = 'p' AND revision > ${first} AND revision <= ${last}`));
    expect(since(second)).to.be.at.least(threshold);
    expect(since(second - 1)).to.be.below(threshold);
    // Before it, a process with nothing in hand would have replayed less than the threshold; one that loads after it replays only what followed it.
    await change(db.first, (draft) => addTask(draft, 'T-after'));
    const pool = openPool(db.url);
    db.pools.push(pool);
    const replayed: number[] = [];
    watchStatements(pool, ([text]) => {
      if (typeof text !== 'string' || !text.startsWith('SELECT revision::int, change,')) return;
      return (answer) => void Promise.resolve(answer).then((result) => replayed.push(...(result as { rows: { revision: number }[] }).rows.map((row) => row.revision)));
    });
    expect(await stateOf(new PgProjectStoreFactory(pool).open('p'))).to.deep.equal(await stateOf(db.first));
    expect(replayed).to.deep.equal([second + 1]);
  });

  it('a checkpoint that differs from the one before in one node writes about that node\'s bytes, not the whole; the pieces only the older one used go with it', async function () {
    // 36 commits of 600 KB before its second checkpoint: tens of seconds on a loaded machine.
    this.timeout(180_000);
    // Bodies of fixed bytes: where content-defined cuts fall is then the same on every run (random
    // bodies put the pieces around a change past the bound below now and then: once in this pass's runs).
    for (let index = 0; index < 8; index++) await change(db.first, (draft) => addTask(draft, `T-big-${index}`, { body: seededBody(`T-big-${index}`) }));
    await db.first.checkpointed();
    const first = sql("SELECT revision || '|' || bytes FROM taskdag_checkpoint_manifests WHERE project = 'p'").split('|').map(Number);
    let sent = 0;
    watchStatements(db.pools[0]!, ([text, values]) => {
      if (typeof text !== 'string' || !text.startsWith('INSERT INTO taskdag_checkpoint_pieces')) return;
      for (const value of values as unknown[]) if (Buffer.isBuffer(value)) sent += value.length;
    });
    // 28 new bodies of the same task: over 16 MiB of change sets (the threshold after a checkpoint
    // of 4.8 MB), so the last commit saves a checkpoint, in which one node changed.
    const body = seededBody('the last body');
    for (let index = 0; index < 28; index++) await change(db.first, (draft) => rewriteBody(draft, 'T-big-0', index === 27 ? body : seededBody(`body ${index}`)));
    await db.first.checkpointed();
    const second = sql("SELECT revision || '|' || bytes FROM taskdag_checkpoint_manifests WHERE project = 'p'").split('|').map(Number);
    expect(second[0]).to.be.greaterThan(first[0]!);
    expect(second[1]).to.be.greaterThan(4 * 1024 * 1024);
    // The pieces that hold the new body (600 KB; each end within a piece of the pieces before and
    // after it) and the first piece (the lines before the nodes), not the checkpoint's 4.8 MB.
    expect(sent).to.be.within(body.length, body.length + 4 * CHECKPOINT_PIECE_BYTES);
    expect(sent).to.be.lessThan(second[1]! / 3);
    expect(sql("SELECT count(*) FROM taskdag_checkpoint_pieces p WHERE project = 'p' AND NOT EXISTS (SELECT 1 FROM taskdag_checkpoint_piece_refs r WHERE r.project = 'p' AND r.hash = p.hash)")).to.equal('0');
    expect((await newestCheckpointRow(db.pools[0]!, 'p'))!.checkpoint.length).to.equal(second[1]);
    const pool = openPool(db.url);
    db.pools.push(pool);
    expect(await stateOf(new PgProjectStoreFactory(pool).open('p'))).to.deep.equal(await stateOf(db.first));
  });

  it('a checkpoint is stored compressed with lz4 where the database has it (pglz cost the database four times the CPU), and reads back the same', async function () {
    if (sql("SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)") !== '1') this.skip();
    for (let index = 0; index < 8; index++) await change(db.first, (draft) => addTask(draft, `T-big-${index}`, { body: randomBody() }));
    await db.first.checkpointed();
    // Every piece large enough to be compressed is, with lz4. The setting is the saving transaction's alone.
    expect(sql("SELECT string_agg(DISTINCT pg_column_compression(bytes), ',') FROM taskdag_checkpoint_pieces WHERE project = 'p'")).to.equal('lz4');
    expect(sql('SHOW default_toast_compression')).to.equal('pglz');
    const pool = openPool(db.url);
    db.pools.push(pool);
    expect(await stateOf(new PgProjectStoreFactory(pool).open('p'))).to.deep.equal(await stateOf(db.first));
  });

  it('a checkpoint whose connection dies before any statement of its save keeps a checkpoint that loads, the older or the new one whole, and no piece no checkpoint uses', async function () {
    // A save killed at each of its statements in turn, each after a threshold's worth of commits: about a minute on a loaded machine.
    this.timeout(180_000);
    // The statements of the first process's saves are counted on its clients.
    let armed = 0;
    let seen = 0;
    let killedAt: string | null = null;
    const connect = db.pools[0]!.connect.bind(db.pools[0]!) as (...args: unknown[]) => Promise<import('pg').PoolClient>;
    const watched = new WeakSet<import('pg').PoolClient>();
    // pool.query checks a client out with a callback: a commit, not the save.
    (db.pools[0] as unknown as { connect: unknown }).connect = async (...args: unknown[]) => {
      if (args.length > 0) return connect(...args);
      const client = await connect();
      // A pooled client comes back again: watched once.
      if (watched.has(client)) return client;
      watched.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      let saving = false;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        // A save's transaction opens with a plain BEGIN (a load's is read-only; a read is one statement with none).
        saving ||= args[0] === 'BEGIN';
        if (!saving) return query(...args);
        saving = args[0] !== 'COMMIT' && args[0] !== 'ROLLBACK';
        seen++;
        if (armed > 0 && --armed === 0) {
          // What the database sees when the process dies: the session ends before this statement reaches it.
          killedAt = String(args[0]).trim().split(/\s+/).slice(0, 4).join(' ');
          sql(`SELECT pg_terminate_backend(${(client as unknown as { processID: number }).processID})`);
        }
        return query(...args);
      };
      return client;
    };
    const manifests = () => sql("SELECT string_agg(revision::text, ',' ORDER BY revision) FROM taskdag_checkpoint_manifests WHERE project = 'p'");
    const fresh = () => {
      const pool = openPool(db.url);
      db.pools.push(pool);
      return new PgProjectStoreFactory(pool).open('p');
    };
    const killed: string[] = [];
    for (let statement = 1; ; statement++) {
      const before = manifests();
      armed = statement;
      killedAt = null;
      seen = 0;
      // Commits until one saves a checkpoint (its statements seen), each awaited with its save. A
      // body of 256 KB keeps the checkpoint small, and so its threshold near 4 MiB of change sets.
      for (let index = 0; seen === 0; index++) {
        await change(db.first, (draft) => rewriteBody(draft, 'T-1', randomBody(128 * 1024)));
        await db.first.checkpointed();
      }
      const after = manifests();
      const revision = String((await graphOf(db.first)).revision);
      if (killedAt === null) {
        expect(after).to.equal(revision);
        break;
      }
      killed.push(killedAt);
      // Killed at BEGIN, the save is run again on a fresh connection; anywhere else, nothing of it is kept.
      expect(after).to.equal(statement === 1 ? revision : before);
      expect(sql("SELECT count(*) FROM taskdag_checkpoint_pieces p WHERE project = 'p' AND NOT EXISTS (SELECT 1 FROM taskdag_checkpoint_piece_refs r WHERE r.project = 'p' AND r.hash = p.hash)")).to.equal('0');
      expect(await stateOf(fresh())).to.deep.equal(await stateOf(db.first));
    }
    // BEGIN, the lock, the pieces stored, the pieces sent, the manifest, the older ones dropped, the pieces unused dropped, COMMIT.
    expect(killed.length).to.be.at.least(8);
    expect(killed.at(-1)).to.equal('COMMIT');
    expect(killed.some((text) => text.startsWith('INSERT INTO taskdag_checkpoint_pieces'))).to.equal(true);
    // The tail no save kept still counts: a commit after saves a checkpoint of everything.
    await change(db.first, (draft) => addTask(draft, 'T-after'));
    await db.first.checkpointed();
    expect(await stateOf(fresh())).to.deep.equal(await stateOf(db.first));
  });

  it('a checkpoint whose manifest does not match the pieces it lists (edited by hand) fails the load with STORAGE_ERROR EINVALID, and is left as it is', async () => {
    const revision = sql("SELECT revision FROM taskdag_checkpoint_manifests WHERE project = 'p'");
    sql("UPDATE taskdag_checkpoint_manifests SET pieces = pieces + 1 WHERE project = 'p'");
    const pool = openPool(db.url);
    db.pools.push(pool);
    const error = await rejectionOf(() => graphOf(new PgProjectStoreFactory(pool).open('p')));
    expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(error.details).to.deep.include({ cause: 'EINVALID', path: `postgresql:taskdag_projects/p/checkpoints/${revision}` });
    expect(error.message).to.include('the checkpoint has 1 of its 2 pieces');
    expect(sql("SELECT revision || '|' || pieces FROM taskdag_checkpoint_manifests WHERE project = 'p'")).to.equal(`${revision}|2`);
  });

  it('a checkpoint piece damaged where the database keeps it makes the state unreadable, and a restore writes it again rather than reusing it', async () => {
    for (let index = 0; index < 8; index++) await change(db.first, (draft) => addTask(draft, `T-big-${index}`, { body: randomBody() }));
    await db.first.checkpointed();
    const whole = await stateOf(db.first);
    // One byte inside a node's body in the third piece, its name (the SHA-256 of what it held) left as it was.
    sql("UPDATE taskdag_checkpoint_pieces SET bytes = overlay(bytes PLACING 'X'::bytea FROM 1000 FOR 1) WHERE project = 'p' AND hash = (SELECT hash FROM taskdag_checkpoint_piece_refs WHERE project = 'p' AND position = 2)");
    const fresh = () => {
      const pool = openPool(db.url);
      db.pools.push(pool);
      return new PgProjectStoreFactory(pool).open('p');
    };
    expect(await fresh().inspect()).to.deep.include({ kind: 'unreadable' });
    // A restore of the state as it was (a later fence generation, as `restore` writes it) is read back whole.
    const restored = { ...whole, fence_generation: whole.fence_generation + 1 };
    await fresh().replace(restored);
    expect(await stateOf(fresh())).to.deep.equal(restored);
  });

  it('a whole replacement by one process is seen whole by the other (a new incarnation)', async () => {
    await graphOf(db.second);
    const next = { ...sampleState(), fence_generation: sampleState().fence_generation + 1 };
    deleteNode(next, 'K-1');
    next.edges = next.edges.filter((edge) => edge.from !== 'K-1' && edge.to !== 'K-1');
    await db.first.replace(next);
    expect(Object.keys((await graphOf(db.second)).nodes)).not.to.include('K-1');
    expect(await stateOf(db.second)).to.deep.equal(await stateOf(db.first));
  });

  it('claims race between processes with one winner: a change set made on a revision another already extended is refused', async () => {
    await change(db.first, (draft) => addTask(draft, 'T-9'));
    const take = (store: PgProjectStore, agent: string) =>
      store.transact((graph) => {
        const node = nodeOf(graph, 'T-9')!;
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
    testPostgres().sql(dbName(db.url), 'ALTER TABLE taskdag_change_sets ADD CONSTRAINT no_more CHECK (revision < 0) NOT VALID');
    const error = await rejectionOf(() => change(db.first, (draft) => addTask(draft, 'T-8')));
    expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(error.details.cause).to.equal('23514');
    expect(await stateOf(db.second)).to.deep.equal(before);
    expect(await stateOf(db.first)).to.deep.equal(before);
  });
});

describe('contentPieces', () => {
  const joined = (pieces: readonly { bytes: Buffer }[]) => Buffer.concat(pieces.map((piece) => piece.bytes));

  it('cuts every byte once, in order, wherever the input is split, into pieces of at most CHECKPOINT_PIECE_BYTES named by their SHA-256', () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const whole = [...contentPieces([bytes])];
    const split = [...contentPieces([bytes.subarray(0, 1), bytes.subarray(1, 100_000), Buffer.alloc(0), bytes.subarray(100_000)])];
    expect(joined(whole).equals(bytes)).to.equal(true);
    expect(split.map((piece) => piece.hash)).to.deep.equal(whole.map((piece) => piece.hash));
    expect(Math.max(...whole.map((piece) => piece.bytes.length))).to.be.at.most(CHECKPOINT_PIECE_BYTES);
    expect(whole.length).to.be.within(8, 3 * 64);
    expect([...contentPieces([])]).to.deep.equal([]);
    // Bytes that repeat with no place to cut are cut at the largest piece.
    expect([...contentPieces([Buffer.alloc(CHECKPOINT_PIECE_BYTES * 2 + 5, 'x')])].map((piece) => piece.bytes.length)).to.deep.equal([CHECKPOINT_PIECE_BYTES, CHECKPOINT_PIECE_BYTES, 5]);
  });

  it('bytes inserted in the middle change the piece that holds them (or two), not the pieces after', () => {
    const bytes = randomBytes(4 * 1024 * 1024);
    const at = 2 * 1024 * 1024;
    const before = new Set([...contentPieces([bytes])].map((piece) => piece.hash));
    const edited = [...contentPieces([bytes.subarray(0, at), Buffer.from('a node grew'), bytes.subarray(at)])];
    expect(edited.filter((piece) => !before.has(piece.hash)).length).to.be.within(1, 2);
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

  it('migrates a database of schema 4 with its data: each project becomes the change set its state starts with, loads as it was, and commits on', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    try {
      expect(await migrate(pool, 4)).to.deep.equal([1, 2, 3, 4]);
      const before = sampleState();
      await writeSchema4Project(pool, 'p', before, { limit: { name: 'limit', module: '/plugins/limit.js', api_version: 1, installed_at: NOW, installed_by: 'alice', data: { n: 1 } } });
      // Then a commit of schema 4: a note appended to T-1 is a row of its own, beside the node's.
      const note = { at: NOW, by: 'bob', text: 'a note row' };
      const node = nodeOf(before, 'T-1')!;
      const entry = { revision: before.revision + 1, at: NOW, by: 'bob', op: 'add-note', node: 'T-1' };
      await pool.query('INSERT INTO taskdag_notes (project, node, revision, node_revision, updated_at, note) VALUES ($1, $2, $3, $4, $5, $6)', [
        'p',
        'T-1',
        entry.revision,
        node.revision + 1,
        NOW,
        JSON.stringify(note),
      ]);
      await pool.query('INSERT INTO taskdag_log (project, seq, entry) VALUES ($1, $2, $3)', ['p', before.log.length + 1, JSON.stringify(entry)]);
      await pool.query('UPDATE taskdag_projects SET revision = $2, log_length = $3 WHERE id = $1', ['p', entry.revision, before.log.length + 1]);
      const expected: State = structuredClone({ ...before, revision: entry.revision, log: [...before.log, entry as State['log'][number]] });
      setNode(expected, 'T-1', { ...node, notes: [...node.notes, note], revision: node.revision + 1, updated_at: NOW });

      expect(await migrate(pool)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 4 }, (_, index) => index + 5));
      const store = new PgProjectStoreFactory(pool).open('p');
      const migrated = await store.readState((state, plugins) => structuredClone({ state, plugins: plugins() }));
      expect(migrated.state).to.deep.equal(expected);
      expect(nodeIds(migrated.state)).to.deep.equal(nodeIds(expected));
      expect(migrated.plugins).to.deep.equal({ limit: { name: 'limit', module: '/plugins/limit.js', api_version: 1, installed_at: NOW, installed_by: 'alice', data: { n: 1 } } });
      await store.transact((graph) => {
        const draft = new GraphDraft(graph, NOW, 'alice');
        addTask(draft, 'T-new');
        return { result: null, changes: draft.changes() };
      });
      const fresh = new PgProjectStoreFactory(pool).open('p');
      expect(Object.keys(await fresh.readGraph((graph) => graph.nodes))).to.include.members(['T-1', 'T-new']);
    } finally {
      await pool.end();
    }
  });

  it('migrates a database of schema 7 with its checkpoints: each becomes pieces of a manifest that joined are its bytes, loads as it was, and its old row goes with the next save', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    try {
      expect(await migrate(pool, 7)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      // The rows schema 7's store wrote for a whole state: the project, the change set it starts with, its checkpoint in one row.
      const state = sampleState();
      setNode(state, 'T-1', { ...nodeOf(state, 'T-1')!, body: randomBody().repeat(4) } as GraphNode);
      const { log: _log, ...graph } = state;
      const checkpoint = encodeCheckpoint(graph, { table: 'taskdag_change_sets', revision: state.revision });
      expect(checkpoint.length).to.be.greaterThan(2 * 1024 * 1024);
      await writeSchema7Project(pool, 'p', state, checkpoint);

      expect(await migrate(pool)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 7 }, (_, index) => index + 8));
      const migrated = (await newestCheckpointRow(pool, 'p'))!;
      expect(migrated.revision).to.equal(state.revision);
      expect(migrated.checkpoint.equals(checkpoint)).to.equal(true);
      const pieces = await pool.query<{ pieces: number; bytes: string }>("SELECT pieces, bytes FROM taskdag_checkpoint_manifests WHERE project = 'p'");
      expect(pieces.rows).to.deep.equal([{ pieces: Math.ceil(checkpoint.length / (1024 * 1024)), bytes: String(checkpoint.length) }]);
      const store = new PgProjectStoreFactory(pool).open('p');
      expect(await store.readState((loaded) => structuredClone(plainGraph(loaded)))).to.deep.equal(state);
      await store.transact((current) => {
        const draft = new GraphDraft(current, NOW, 'alice');
        addTask(draft, 'T-new');
        return { result: null, changes: draft.changes() };
      });
      expect(await new PgProjectStoreFactory(pool).open('p').readGraph((loaded) => nodeIds(loaded))).to.include.members(['T-1', 'T-new']);
      // The old row is no longer read; a save of the project (here a whole replacement's) removes it.
      expect((await pool.query("SELECT count(*)::int AS n FROM taskdag_checkpoints WHERE project = 'p'")).rows[0]).to.deep.equal({ n: 1 });
      await store.replace({ ...sampleState(), fence_generation: state.fence_generation + 1 });
      expect((await pool.query("SELECT count(*)::int AS n FROM taskdag_checkpoints WHERE project = 'p'")).rows[0]).to.deep.equal({ n: 0 });
    } finally {
      await pool.end();
    }
  });

  it('migrates a database of schema 11: its change sets stay compressed as they were and load as before, and those committed after are compressed with lz4 (schema 12)', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    const compressions = async () =>
      (await pool.query<{ revision: number; compression: string }>("SELECT revision::int, pg_column_compression(change) AS compression FROM taskdag_change_sets WHERE project = 'p' ORDER BY revision")).rows;
    try {
      expect(await migrate(pool, 11)).to.have.length(11);
      // Long enough that the database compresses it (over 2 KB), as a group commit's change set is, and compressible.
      const body = 'a body that compresses well, as JSON of nodes does. '.repeat(100);
      const state = sampleState();
      setNode(state, 'T-1', { ...nodeOf(state, 'T-1')!, body } as GraphNode);
      const store = new PgProjectStoreFactory(pool).open('p');
      await store.replace(state);
      expect(await compressions()).to.deep.equal([{ revision: state.revision, compression: 'pglz' }]);

      expect(await migrate(pool)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 11 }, (_, index) => index + 12));
      await store.transact((graph) => {
        const draft = new GraphDraft(graph, NOW, 'alice');
        draft.putNode({ ...draft.requireNode('T-1'), body: `${body} again` } as GraphNode);
        draft.record({ op: 'edit', node: 'T-1' });
        return { result: null, changes: draft.changes() };
      });
      expect(await compressions()).to.deep.equal([
        { revision: state.revision, compression: 'pglz' },
        { revision: state.revision + 1, compression: 'lz4' },
      ]);
      const loaded = await new PgProjectStoreFactory(pool).open('p').readState((read) => structuredClone(plainGraph(read)));
      expect(nodeOf(loaded, 'T-1')!.body).to.equal(`${body} again`);
      expect(loaded.log.slice(0, -1)).to.deep.equal(state.log);
    } finally {
      await pool.end();
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

/** A project's rows as the store of schemas 1 to 4 wrote them for a whole state (its writeWhole). */
async function writeSchema4Project(pool: Pool, project: string, state: State, plugins: Record<string, unknown>): Promise<void> {
  const { log, ...graph } = state;
  await pool.query('INSERT INTO taskdag_projects (id, version, fence_generation, revision, incarnation, log_length, edges_revision) VALUES ($1, 1, $2, $3, 1, $4, $3)', [
    project,
    state.fence_generation,
    state.revision,
    log.length,
  ]);
  await pool.query('INSERT INTO taskdag_nodes (project, id, revision, node) SELECT $1, key, $2, value FROM json_each($3::json)', [project, state.revision, JSON.stringify(graph.nodes)]);
  await pool.query('INSERT INTO taskdag_initiatives (project, name, revision, initiative) SELECT $1, key, $2, value FROM json_each($3::json)', [
    project,
    state.revision,
    JSON.stringify(graph.initiatives),
  ]);
  await pool.query(
    `INSERT INTO taskdag_edges (project, from_id, to_id, type) SELECT $1, edge->>'from', edge->>'to', edge->>'type'
     FROM json_array_elements($2::json) WITH ORDINALITY AS edges (edge, at) ORDER BY at`,
    [project, JSON.stringify(graph.edges)],
  );
  await pool.query('INSERT INTO taskdag_log (project, seq, entry) SELECT $1, ordinality, value FROM json_array_elements($2::json) WITH ORDINALITY', [project, JSON.stringify(log)]);
  await pool.query(
    'INSERT INTO taskdag_plugin_data (project, plugin, key, value) SELECT $1, plugin.key, field.key, field.value FROM json_each($2::json) plugin, json_each(plugin.value) field',
    [project, JSON.stringify(plugins)],
  );
}

/** 600 KB that repeat nowhere: a body no two checkpoints' pieces share by chance. */
/** `bytes` random bytes in hex (twice as many characters): content no checkpoint piece shares. */
function randomBody(bytes = 300 * 1024): string {
  return randomBytes(bytes).toString('hex');
}

/** As randomBody, the same bytes for the same seed: SHA-512 of the seed and a counter, block after block. */
function seededBody(seed: string, bytes = 300 * 1024): string {
  const blocks = Array.from({ length: Math.ceil(bytes / 64) }, (_, counter) => createHash('sha512').update(`${seed}/${counter}`).digest());
  return Buffer.concat(blocks).subarray(0, bytes).toString('hex');
}

function dbName(url: string): string {
  return new URL(url).pathname.slice(1);
}
