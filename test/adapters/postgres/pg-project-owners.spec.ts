import { expect } from 'chai';
import { nodeIds, plainGraph } from '../../../domain/node-map.js';
import { encodeCheckpoint } from '../../../adapters/checkpoint-file.js';
import type { Pool } from 'pg';
import { openPool } from '../../../adapters/postgres/pg-pool.js';
import { PgProjectOwners } from '../../../adapters/postgres/pg-project-owners.js';
import { PgProjectStoreFactory, type PgProjectStore } from '../../../adapters/postgres/pg-project-store.js';
import { migrate, SCHEMA_VERSION } from '../../../adapters/postgres/pg-schema.js';
import { isOwnedElsewhere } from '../../../application/ports/project-owners.js';
import { GraphDraft } from '../../../domain/draft.js';
import type { Graph } from '../../../domain/model.js';
import { rejectionOf } from '../../support/failures.js';
import { NOW, addTask } from '../../support/graphs.js';
import { freshDatabase, statementsOf, watchStatements, writeSchema7Project } from '../../support/postgres.js';
import { sampleState } from '../../support/states.js';

/** A server process's share of the database: its pool, its leases (registered at `address`) and its stores. */
interface Process {
  pool: Pool;
  owners: PgProjectOwners;
  stores: PgProjectStoreFactory;
  lines: string[];
}

const change = (store: PgProjectStore, id: string) =>
  store.transact((graph) => {
    const draft = new GraphDraft(graph, NOW, 'alice');
    addTask(draft, id);
    return { result: graph.revision, changes: draft.changes(), undo: () => draft.rollback() };
  });
const graphOf = (store: PgProjectStore): Promise<Graph> => store.readGraph((graph) => structuredClone(plainGraph(graph)));

describe('one owning process per project, by a lease with a fencing token (issue 25)', function () {
  this.timeout(60_000);
  let url: string;
  let processes: Process[];

  /** Leases long enough that no renewal runs during a test unless it waits for one. */
  const start = async (address: string, leaseMs = 60_000): Promise<Process> => {
    const pool = openPool(url);
    const lines: string[] = [];
    const owners = new PgProjectOwners(pool, url, leaseMs, (line) => lines.push(line));
    await owners.start(address);
    const started = { pool, owners, stores: new PgProjectStoreFactory(pool, owners), lines };
    processes.push(started);
    return started;
  };
  /** What a paused or cut-off process looks like to the others: its lease ran out, its session is still there. */
  const expireLease = (process: Process) => process.pool.query("UPDATE taskdag_processes SET expires_at = now() - interval '1 second' WHERE id = $1", [process.owners.id]);
  const ownerOf = async (pool: Pool, project: string) => (await pool.query<{ process: string; fence: string }>('SELECT process, fence::text FROM taskdag_owners WHERE project = $1', [project])).rows[0];

  beforeEach(async () => {
    url = freshDatabase();
    processes = [];
    const seed = openPool(url);
    await migrate(seed);
    await new PgProjectStoreFactory(seed).open('p').replace(sampleState());
    await seed.end();
  });
  afterEach(async () => {
    for (const process of processes) {
      await process.owners.close();
      await process.pool.end();
    }
  });

  it("a former owner whose lease ran out cannot commit once another process took the project over: the fence refuses it, in the same one round trip, and the state is left as it was", async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    const first = a.stores.open('p');
    await change(first, 'T-a1');
    const statements = statementsOf(a.pool);
    await change(first, 'T-a2');
    expect(statements(), 'an owner commit is one statement').to.equal(1);

    await expireLease(a);
    expect(await b.owners.ownerAfter('p', 'http://127.0.0.1:1'), 'b took the project over').to.equal(null);
    const before = await graphOf(b.stores.open('p'));

    // a still believes it owns p (it was paused): its commit goes out with its old token.
    const late = statementsOf(a.pool);
    const error = await rejectionOf(() => change(first, 'T-late'));
    expect(isOwnedElsewhere(error), String(error)).to.equal(true);
    expect(late(), 'the refused commit is one statement too').to.equal(1);
    expect(a.lines.join('\n')).to.include('project p was taken over by another process');
    const after = await graphOf(new PgProjectStoreFactory(b.pool).open('p'));
    expect(after.revision).to.equal(before.revision);
    expect(after.nodes).not.to.have.property('T-late');
    // a's own state in memory was put back, and its next mutation is refused before any work.
    expect((await graphOf(first)).nodes).not.to.have.property('T-late');
    expect(isOwnedElsewhere(await rejectionOf(() => change(first, 'T-late2')))).to.equal(true);

    await change(b.stores.open('p'), 'T-b1');
    expect((await graphOf(first)).nodes).to.include.keys('T-a1', 'T-a2', 'T-b1');
    expect(await ownerOf(b.pool, 'p')).to.deep.equal({ process: b.owners.id, fence: '2' });
  });

  it('a live owner keeps its project: another process is told its address and takes nothing over', async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    const error = await rejectionOf(() => change(b.stores.open('p'), 'T-b'));
    expect(error).to.deep.include({ name: 'OwnedElsewhere', project: 'p', owner: 'http://127.0.0.1:1' });
    expect(await b.owners.ownerAfter('p', 'http://127.0.0.1:1')).to.equal('http://127.0.0.1:1');
    await b.owners.takeIfFree('p');
    expect(await ownerOf(a.pool, 'p')).to.deep.equal({ process: a.owners.id, fence: '1' });
    expect((await graphOf(b.stores.open('p'))).nodes).not.to.have.property('T-b');
  });

  it('an owner whose session ended (a killed process) is taken over at once, without waiting for its lease', async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    // The liveness session of a ends as it would with the process: its lease still has a minute to run.
    await b.pool.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN taskdag_processes p ON p.id = $1
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.classid = ((p.lock_key >> 32) & 4294967295)::oid AND l.objid = (p.lock_key & 4294967295)::oid`,
      [a.owners.id],
    );
    const started = Date.now();
    let owner: string | null = 'http://127.0.0.1:1';
    // a's session comes back after a second (a reconnects): the takeover is well before.
    while (owner !== null && Date.now() - started < 900) owner = await b.owners.ownerAfter('p', owner);
    expect(owner).to.equal(null);
    await change(b.stores.open('p'), 'T-b');
  });

  it('a process that stops releases its projects: another takes them at once', async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    await a.owners.close();
    expect(await b.owners.ownerAfter('p', 'http://127.0.0.1:1')).to.equal(null);
    await change(b.stores.open('p'), 'T-b');
  });

  it('a free project is taken by the process its first mutation reaches, unless that one owns more than one above the least loaded', async () => {
    const seed = openPool(url);
    const projects = Array.from({ length: 8 }, (_, index) => `q${index}`);
    for (const project of projects) await new PgProjectStoreFactory(seed).open(project).replace(sampleState());
    await seed.end();
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    // Every first mutation reaches a; what a is told to hand over, b takes (as a forwarded request does).
    const taker: string[] = [];
    for (const project of projects) {
      const error = await change(a.stores.open(project), 'T-new').then(
        () => null,
        (refused: unknown) => refused,
      );
      taker.push(error === null ? 'a' : 'b');
      if (error === null) continue;
      expect(error).to.deep.include({ name: 'OwnedElsewhere', owner: 'http://127.0.0.1:2' });
      await b.owners.takeIfFree(project);
      await change(b.stores.open(project), 'T-new');
    }
    // a takes two, then hands one over whenever it is two ahead.
    expect(taker).to.deep.equal(['a', 'a', 'b', 'a', 'b', 'a', 'b', 'a']);
    // Balanced traffic keeps its owners: each process takes the projects its requests reach.
    for (const [index, project] of ['r0', 'r1', 'r2', 'r3'].entries()) {
      await new PgProjectStoreFactory(a.pool).open(project).replace(sampleState());
      await change((index % 2 === 0 ? b : a).stores.open(project), 'T-new');
    }
    const owned = (await a.pool.query<{ project: string; process: string }>("SELECT project, process FROM taskdag_owners WHERE project LIKE 'r%' ORDER BY project")).rows;
    expect(owned.map((row) => (row.process === a.owners.id ? 'a' : 'b'))).to.deep.equal(['b', 'a', 'b', 'a']);
  });

  it('a mutation that arrives between listening and registering waits for the registration, then takes the free project', async () => {
    const pool = openPool(url);
    const owners = new PgProjectOwners(pool, url, 60_000, () => undefined);
    processes.push({ pool, owners, stores: new PgProjectStoreFactory(pool, owners), lines: [] });
    let settled = false;
    const committed = change(new PgProjectStoreFactory(pool, owners).open('p'), 'T-early').finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).to.equal(false);
    await owners.start('http://127.0.0.1:1');
    await committed;
    expect(await ownerOf(pool, 'p')).to.deep.equal({ process: owners.id, fence: '1' });
  });

  it('a renewal tells a process which of its projects were taken over, so it stops committing them', async () => {
    const a = await start('http://127.0.0.1:1', 600);
    await a.owners.takeIfFree('p');
    const b = await start('http://127.0.0.1:2');
    await a.pool.query("UPDATE taskdag_owners SET process = $1, fence = fence + 1 WHERE project = 'p'", [b.owners.id]);
    const deadline = Date.now() + 5_000;
    while (!a.lines.some((line) => line.includes('project p was taken over')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.owners.elsewhere('p')).to.equal(undefined);
    expect(isOwnedElsewhere(await rejectionOf(() => change(a.stores.open('p'), 'T-a')))).to.equal(true);
  });

  it('a renewal is one round trip, however many projects the process owns: every process sends one every third of a lease', async () => {
    const seed = openPool(url);
    for (const project of ['q', 'r']) await new PgProjectStoreFactory(seed).open(project).replace(sampleState());
    await seed.end();
    const a = await start('http://127.0.0.1:1', 600);
    for (const project of ['p', 'q', 'r']) await a.owners.takeIfFree(project);
    const sent: string[] = [];
    watchStatements(a.pool, ([text]) => void sent.push(String(text)));
    // A renewal every 200 ms: two or three in half a second, and nothing else sent meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sent).to.have.length.within(1, 3);
    for (const text of sent) expect(text).to.include('INSERT INTO taskdag_processes').and.to.include('FROM taskdag_owners');
    // The renewal still answers the projects held: none is dropped as taken over.
    expect(['p', 'q', 'r'].map((project) => a.owners.knownOwner(project))).to.deep.equal(Array(3).fill('http://127.0.0.1:1'));
    expect(a.lines.filter((line) => line.includes('taken over'))).to.deep.equal([]);
    expect((await ownerOf(a.pool, 'r'))!.process).to.equal(a.owners.id);
  });
});

describe('commits notify only while some process hears the revision channel (issue 25 item 4)', function () {
  this.timeout(60_000);
  let url: string;
  let pools: Pool[];
  let owners: PgProjectOwners[];
  let listening: import('pg').Client;
  let heard: { project: string; revision: number }[];

  const start = async (address: string, leaseMs = 60_000): Promise<{ owners: PgProjectOwners; stores: PgProjectStoreFactory; pool: Pool }> => {
    const pool = openPool(url);
    pools.push(pool);
    const started = new PgProjectOwners(pool, url, leaseMs, () => undefined);
    owners.push(started);
    await started.start(address);
    return { owners: started, stores: new PgProjectStoreFactory(pool, started), pool };
  };
  /** A notification arrives within milliseconds of its commit: 300 ms without one is none. */
  const notifiedOf = async (project: string, revision: number) => {
    const deadline = Date.now() + 300;
    while (Date.now() < deadline && !heard.some((event) => event.project === project && event.revision === revision)) await new Promise((resolve) => setTimeout(resolve, 20));
    return heard.some((event) => event.project === project && event.revision === revision);
  };

  beforeEach(async () => {
    url = freshDatabase();
    pools = [];
    owners = [];
    const seed = openPool(url);
    await migrate(seed);
    for (const project of ['p', 'q']) await new PgProjectStoreFactory(seed).open(project).replace(sampleState());
    await seed.end();
    heard = [];
    const pg = await import('pg');
    listening = new pg.default.Client({ connectionString: url });
    await listening.connect();
    listening.on('notification', (message) => heard.push(JSON.parse(message.payload!) as { project: string; revision: number }));
    await listening.query('LISTEN taskdag_revisions');
  });
  afterEach(async () => {
    await listening.end();
    for (const each of owners) await each.close();
    for (const pool of pools) await pool.end();
  });

  it("an owner's commit notifies nobody while no process hears; while one does, every commit notifies, of projects owned before and claimed after; once it stops, or dies hearing, none again", async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n1')), 'nobody hears').to.equal(false);

    await b.owners.hearing(['p', 'q']);
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n2')), 'b hears').to.equal(true);
    await a.owners.takeIfFree('q');
    expect(await notifiedOf('q', await change(a.stores.open('q'), 'T-n3')), 'a project claimed while b hears').to.equal(true);

    await b.owners.hearing([]);
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n4')), 'b stopped').to.equal(false);

    // b hears, then dies (its lease runs out): a process that starts finds nobody alive hears.
    await b.owners.hearing(['p', 'q']);
    await b.pool.query("UPDATE taskdag_processes SET expires_at = now() - interval '1 second' WHERE id = $1", [b.owners.id]);
    await start('http://127.0.0.1:3');
    expect(await notifiedOf('q', await change(a.stores.open('q'), 'T-n5')), 'the hearing process is gone').to.equal(false);
    expect((await a.pool.query('SELECT DISTINCT notify FROM taskdag_owners')).rows).to.deep.equal([{ notify: false }]);
  });

  it("a project's commits notify only while some process hears that project: a board on p makes q's commits notify nobody, on any owner; a process of the release before, hearing with no projects named, hears them all (schema 11)", async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    const c = await start('http://127.0.0.1:3');
    await a.owners.takeIfFree('p');
    await c.owners.takeIfFree('q');
    await b.owners.hearing(['p']);
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n1')), 'p is heard').to.equal(true);
    expect(await notifiedOf('q', await change(c.stores.open('q'), 'T-n2')), 'q is not').to.equal(false);
    // A project claimed after b began to hear takes its flag from the projects b hears.
    await c.owners.takeIfFree('r');
    await c.stores.open('r').replace(sampleState());
    expect(await notifiedOf('r', await change(c.stores.open('r'), 'T-n3')), 'r is not').to.equal(false);
    await b.owners.hearing(['p', 'r']);
    expect(await notifiedOf('r', await change(c.stores.open('r'), 'T-n4')), 'r is heard').to.equal(true);
    await b.owners.hearing(['r']);
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n5')), 'p no longer').to.equal(false);
    expect((await a.pool.query('SELECT project, notify FROM taskdag_owners ORDER BY project')).rows).to.deep.equal([
      { project: 'p', notify: false },
      { project: 'q', notify: false },
      { project: 'r', notify: true },
    ]);
    // A hearing process of the release before sets `hearing` and names no project: every project's commits notify.
    await b.owners.hearing([]);
    await a.pool.query('UPDATE taskdag_processes SET hearing = true WHERE id = $1', [c.owners.id]);
    await b.owners.hearing(['r']);
    expect(await notifiedOf('q', await change(c.stores.open('q'), 'T-n6')), 'an older process hears all').to.equal(true);
  });

  it('a hearing process taken for gone (its lease ran out) while others put the rows right without it is notified again from its next renewal, and told to read where each project stands', async () => {
    const a = await start('http://127.0.0.1:1');
    // b renews every 200 ms; the test holds its row, as a slow database or a paused process does, while its lease has run out.
    const b = await start('http://127.0.0.1:2', 600);
    await a.owners.takeIfFree('p');
    let missed = 0;
    await b.owners.hearing(['p', 'q'], () => missed++);
    const holder = await a.pool.connect();
    try {
      await holder.query("UPDATE taskdag_processes SET expires_at = now() - interval '1 second' WHERE id = $1", [b.owners.id]);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM taskdag_processes WHERE id = $1 FOR UPDATE', [b.owners.id]);
      // Meanwhile a process starts, and a claims a new project: neither finds b alive.
      await start('http://127.0.0.1:3');
      await a.owners.takeIfFree('q');
      expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n1')), 'b taken for gone').to.equal(false);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    const deadline = Date.now() + 5_000;
    while (missed === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n2')), 'an owned project').to.equal(true);
    expect(await notifiedOf('q', await change(a.stores.open('q'), 'T-n3')), 'the project claimed meanwhile').to.equal(true);
    expect(missed, 'b was told that commits went unheard').to.equal(1);
  });

  it('a process starting to hear waits for the commits in flight: each either notifies or has committed before it reads where each project stands', async () => {
    const a = await start('http://127.0.0.1:1');
    const b = await start('http://127.0.0.1:2');
    await a.owners.takeIfFree('p');
    // A commit in flight holds its owner row shared until it has committed, as the fenced append does.
    const inFlight = await a.pool.connect();
    try {
      await inFlight.query('BEGIN');
      await inFlight.query("SELECT 1 FROM taskdag_owners WHERE project = 'p' FOR SHARE");
      let declared = false;
      const hearing = b.owners.hearing(['p']).then(() => (declared = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(declared, 'waits for the commit in flight').to.equal(false);
      await inFlight.query('COMMIT');
      await hearing;
    } finally {
      inFlight.release();
    }
    expect(await notifiedOf('p', await change(a.stores.open('p'), 'T-n1'))).to.equal(true);
  });
});

describe('schema 7 (project owners) on a database of schema 6', function () {
  this.timeout(60_000);

  it('migrates with its projects and their change sets; an owner then commits on them', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    const owners = new PgProjectOwners(pool, url, 60_000, () => undefined);
    try {
      expect(await migrate(pool, 6)).to.deep.equal([1, 2, 3, 4, 5, 6]);
      const { log: _log, ...graph } = sampleState();
      await writeSchema7Project(pool, 'p', sampleState(), encodeCheckpoint(graph, { table: 'taskdag_change_sets', revision: sampleState().revision }));
      expect(await migrate(pool)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 6 }, (_, index) => index + 7));
      await owners.start('http://127.0.0.1:1');
      const store = new PgProjectStoreFactory(pool, owners).open('p');
      await change(store, 'T-6');
      expect(nodeIds(await graphOf(new PgProjectStoreFactory(pool).open('p')))).to.include.members(['T-1', 'T-6']);
    } finally {
      await owners.close();
      await pool.end();
    }
  });
});
