import { expect } from 'chai';
import { openPool } from '../../../adapters/postgres/pg-pool.js';
import { PgProjectStoreFactory, type PgProjectStore } from '../../../adapters/postgres/pg-project-store.js';
import { migrate, SCHEMA_VERSION } from '../../../adapters/postgres/pg-schema.js';
import type { PluginTable } from '../../../domain/plugins.js';
import type { StoredState } from '../../../application/ports/project-store.js';
import { rejectionOf } from '../../support/failures.js';
import { NOW } from '../../support/graphs.js';
import { freshDatabase, testPostgres, useTwoProcesses } from '../../support/postgres.js';
import { sampleState } from '../../support/states.js';

const table = (limit: number): PluginTable => ({
  'wip-limit': { name: 'wip-limit', module: '/plugins/wip-limit.js', api_version: 1, installed_at: NOW, installed_by: 'alice', data: { limit } },
});

/** The plugin table on PostgreSQL (docs/plugins.md, docs/scaling.md): two processes, each with its own pool and cache. */
describe('PgProjectStore plugin table across processes', function () {
  this.timeout(60_000);
  const db = useTwoProcesses((store) => store.replace(sampleState(), table(1)));
  const sql = (statement: string) => testPostgres().sql(new URL(db.url).pathname.slice(1), statement).trim();
  const tableOf = (store: PgProjectStore) => store.readGraph((_graph, plugins) => plugins());
  const nextRevision = (current: StoredState) => {
    if (current.kind !== 'valid') throw new Error(`no valid state: ${current.kind}`);
    return { ...current.state, revision: current.state.revision + 1 };
  };

  it('stores each plugin field as a row of taskdag_plugin_data, its data under the key data, and reads the table back as given', async () => {
    expect(sql("SELECT value FROM taskdag_plugin_data WHERE project = 'p' AND plugin = 'wip-limit' AND key = 'data'")).to.equal('{"limit":1}');
    const read = await tableOf(db.second);
    expect(read).to.deep.equal(table(1));
    expect(Object.keys(read['wip-limit']!)).to.deep.equal(Object.keys(table(1)['wip-limit']!));
  });

  it('a change of plugins by one process is what the other decides on under the lock, and a reset removes every row', async () => {
    expect(await db.second.transact((_graph, plugins) => ({ result: plugins(), changes: null }))).to.deep.equal(table(1));
    await db.first.rewrite((current) => ({ result: null, state: nextRevision(current), plugins: table(5) }));
    expect(await db.second.transact((_graph, plugins) => ({ result: plugins(), changes: null }))).to.deep.equal(table(5));
    await db.first.rewrite((current) => ({ result: null, state: nextRevision(current) }));
    expect(await tableOf(db.second)).to.deep.equal({});
    expect(sql("SELECT count(*) FROM taskdag_plugin_data WHERE project = 'p'")).to.equal('0');
  });

  it('a replacement whose write fails leaves the state and the plugin table as they were (one transaction)', async () => {
    const before = await db.first.inspect();
    sql("ALTER TABLE taskdag_plugin_data ADD CONSTRAINT no_more CHECK (key <> 'data') NOT VALID");
    const error = await rejectionOf(() => db.first.rewrite((current) => ({ result: null, state: nextRevision(current), plugins: table(7) })));
    expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(error.details.cause).to.equal('23514');
    expect(await db.second.inspect()).to.deep.equal(before);
    expect(await db.first.inspect()).to.deep.equal(before);
  });

  it('rows that do not make a plugin table are the state\'s own damage: reads that ask fail, inspect says unreadable, a rewrite keeps the rows in its snapshot', async () => {
    sql("DELETE FROM taskdag_plugin_data WHERE project = 'p' AND key = 'module'");
    const fresh = new PgProjectStoreFactory(db.pools[1]!).open('p');
    // A read that never asks for plugins still works; one that asks fails, as on files.
    expect(await fresh.readGraph((graph) => graph.revision)).to.equal(sampleState().revision);
    const failure = await rejectionOf(() => fresh.readGraph((_graph, plugins) => plugins()));
    expect(failure).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(failure.details).to.deep.include({ cause: 'EINVALID', path: 'postgresql:taskdag_projects/p/plugins', problem: 'plugin wip-limit has no module' });
    const inspected = await fresh.inspect();
    expect(inspected.kind).to.equal('unreadable');
    if (inspected.kind !== 'unreadable') return;
    expect(inspected.error.details.cause).to.equal('EINVALID');
    expect(JSON.parse(inspected.text).plugin_rows).to.deep.include({ plugin: 'wip-limit', key: 'data', value: { limit: 1 } });
    await fresh.rewrite(() => ({ result: null, state: { ...sampleState(), revision: sampleState().revision + 1 } }));
    const [snapshot] = await fresh.snapshots.list();
    expect(snapshot!.reason).to.equal('corrupt-recovery');
    expect(await tableOf(db.first)).to.deep.equal({});
  });

  it('a snapshot keeps the plugin table, and one whose plugin bytes were changed does not load', async () => {
    const current = await db.first.inspect();
    if (current.kind !== 'valid') throw new Error('no state');
    const metadata = await db.first.snapshots.take('pre-restore', current, NOW);
    expect(metadata.plugins).to.have.keys('bytes', 'sha256');
    expect((await db.second.snapshots.load(metadata.id)).plugins).to.deep.equal(table(1));
    sql(`UPDATE taskdag_snapshots SET plugins = convert_to('{"wip-limit":null}' || chr(10), 'UTF8') WHERE id = '${metadata.id}'`);
    const error = await rejectionOf(() => db.second.snapshots.load(metadata.id));
    expect(error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(error.details.cause).to.equal('EINVALID');
  });

  it('refuses a plugin table that would not load before writing anything', async () => {
    const before = await db.first.inspect();
    const broken = { 'wip-limit': { ...table(1)['wip-limit']!, name: 'other' } };
    const error = await rejectionOf(() => db.first.rewrite((current) => ({ result: null, state: nextRevision(current), plugins: broken })));
    expect(error.details).to.deep.include({ cause: 'EINVALID', path: 'postgresql:taskdag_projects/p/plugins' });
    expect(await db.second.inspect()).to.deep.equal(before);
  });
});

describe('PostgreSQL schema 2: snapshots keep plugin tables', function () {
  this.timeout(60_000);

  it('upgrades a schema-1 database in place: its snapshots are kept and load with no plugins', async () => {
    // A snapshot as schema 1 kept it (no plugins column), copied from one taken today.
    const source = openPool(freshDatabase());
    const url = freshDatabase();
    const pool = openPool(url);
    try {
      await migrate(source);
      const store = new PgProjectStoreFactory(source).open('p');
      await store.replace(sampleState());
      const current = await store.inspect();
      if (current.kind !== 'valid') throw new Error('no state');
      const metadata = await store.snapshots.take('pre-migrate', current, NOW);
      const row = (await source.query('SELECT project, id, metadata::text, contents FROM taskdag_snapshots')).rows[0];
      expect(await migrate(pool, 1)).to.deep.equal([1]);
      await pool.query('INSERT INTO taskdag_snapshots (project, id, metadata, contents) VALUES ($1, $2, $3, $4)', [row.project, row.id, row.metadata, row.contents]);
      expect(await migrate(pool)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 1 }, (_, index) => index + 2));
      expect(await new PgProjectStoreFactory(pool).open('p').snapshots.load(metadata.id)).to.deep.include({ metadata, plugins: {} });
    } finally {
      await source.end();
      await pool.end();
    }
  });
});
