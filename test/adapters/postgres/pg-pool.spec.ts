import { expect } from 'chai';
import type { Pool, PoolClient } from 'pg';
import { databaseError, HeldConnection, isConnectionLost, openPool, withTransaction } from '../../../adapters/postgres/pg-pool.js';
import { DomainError } from '../../../domain/errors.js';
import { rejectionOf } from '../../support/failures.js';
import { CLUSTER_PASSWORD, freshDatabase, testPostgres } from '../../support/postgres.js';

describe('database failures as STORAGE_ERROR', function () {
  this.timeout(60_000);

  it('a connection failure names its errno only, never the host, socket or password the driver mentions', async () => {
    const socket = `${testPostgres().dir}-gone`;
    const pool = openPool(`postgresql://taskdag:${CLUSTER_PASSWORD}@${encodeURIComponent(socket)}:5432/x`, 1, 2_000);
    try {
      const error = await rejectionOf(() => withTransaction(pool, async () => undefined));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.deep.equal({ cause: 'ENOENT' });
      expect(JSON.stringify(error)).not.to.include(socket);
      expect(error.message).not.to.include(CLUSTER_PASSWORD);
    } finally {
      await pool.end();
    }
  });

  it("a SQL failure keeps PostgreSQL's message and its SQLSTATE; a bug stays a bug, a domain error stays itself", async () => {
    const pool = openPool(freshDatabase());
    try {
      const error = await rejectionOf(() => withTransaction(pool, (client) => client.query('SELECT * FROM no_such_table')));
      expect(error.details).to.deep.equal({ cause: '42P01' });
      expect(error.message).to.include('no_such_table');
    } finally {
      await pool.end();
    }
    const bug = new TypeError('x is undefined');
    expect(databaseError(bug)).to.equal(bug);
    const domain = new DomainError('NODE_NOT_FOUND', 'No node', {});
    expect(databaseError(domain)).to.equal(domain);
  });

  it('a connection lost before COMMIT: repeatable work runs again on a fresh connection, other work fails with STORAGE_ERROR having committed nothing', async () => {
    const pool = openPool(freshDatabase());
    try {
      await pool.query('CREATE TABLE t (attempt integer)');
      let attempts = 0;
      const work = async (client: PoolClient) => {
        attempts += 1;
        await client.query('INSERT INTO t VALUES ($1)', [attempts]);
        // The first attempt's session is ended under it, as a restart or a failover would.
        if (attempts === 1) await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
        return attempts;
      };
      expect(await withTransaction(pool, work, { repeatable: true })).to.equal(2);
      expect((await pool.query('SELECT attempt FROM t')).rows).to.deep.equal([{ attempt: 2 }]);
      attempts = 0;
      const error = await rejectionOf(() => withTransaction(pool, work));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(['57P01', '08006']).to.include(error.details.cause);
      expect(attempts).to.equal(1);
      expect((await pool.query('SELECT attempt FROM t')).rows).to.deep.equal([{ attempt: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('a connection lost while COMMIT is on its way is never tried again, even for repeatable work: the outcome is unknown and the error says so', async () => {
    let runs = 0;
    const released: boolean[] = [];
    // A client whose COMMIT never gets its answer: the socket closes under it, as in a crash.
    const client = {
      query: async (sql: string) => {
        if (sql === 'COMMIT') throw new Error('Connection terminated unexpectedly');
        return { rows: [] };
      },
      on: () => undefined,
      off: () => undefined,
      release: (destroy?: boolean) => void released.push(destroy === true),
    };
    const pool = { connect: async () => client } as unknown as Pool;
    const error = await rejectionOf(() => withTransaction(pool, async () => (runs += 1), { repeatable: true }));
    expect([error.code, error.details]).to.deep.equal(['STORAGE_ERROR', { cause: '08006', outcome: 'unknown' }]);
    expect(error.message).to.include('may or may not have been applied');
    expect(runs).to.equal(1);
    expect(released).to.deep.equal([true]);
  });

  it("node-postgres's connection failures without a code are STORAGE_ERROR too, never an unexpected error", () => {
    for (const message of ['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable']) {
      const error = databaseError(new Error(message)) as DomainError;
      expect([error.code, error.details], message).to.deep.equal(['STORAGE_ERROR', { cause: '08006' }]);
    }
    const timeout = databaseError(new Error('timeout exceeded when trying to connect')) as DomainError;
    expect([timeout.code, timeout.details]).to.deep.equal(['STORAGE_ERROR', { cause: 'ETIMEDOUT' }]);
  });
});

describe('a held connection (the appends of a project under load)', function () {
  this.timeout(60_000);
  const pidOf = async (held: HeldConnection) => (await held.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' })).rows[0]!.pid;
  const aTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('sends each statement as it is asked for, ahead of callbacks already queued, on one connection until a turn passes with nothing to send', async () => {
    const pool = openPool(freshDatabase(), 4);
    const order: string[] = [];
    const watched = new WeakSet<object>();
    pool.on('acquire', (client) => {
      const stream = (client as unknown as { connection: { stream: { write: (...args: unknown[]) => boolean } } }).connection.stream;
      if (watched.has(stream)) return;
      watched.add(stream);
      const write = stream.write.bind(stream);
      stream.write = (...args: unknown[]) => (order.push('written'), write(...args));
    });
    try {
      const held = new HeldConnection(pool);
      const first = await pidOf(held);
      expect(pool.totalCount - pool.idleCount, 'kept after its statement').to.equal(1);
      order.length = 0;
      void Promise.resolve().then(() => order.push('callback queued before'));
      const second = held.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
      expect(order).to.deep.equal(['written']);
      expect((await second).rows[0]!.pid).to.equal(first);
      await aTurn();
      await aTurn();
      expect(pool.idleCount, 'given back a turn after the last statement').to.equal(pool.totalCount);
      // pool.query, for contrast: its connection is handed over on a later tick, after the callbacks queued.
      order.length = 0;
      void Promise.resolve().then(() => order.push('callback queued before'));
      const pooled = pool.query('SELECT 1');
      await pooled;
      expect(order).to.deep.equal(['callback queued before', 'written']);
    } finally {
      await pool.end();
    }
  });

  it('gives its connection back at once when someone waits for one', async () => {
    const pool = openPool(freshDatabase(), 1);
    try {
      const held = new HeldConnection(pool);
      const statement = pidOf(held);
      const waiting = pool.connect();
      expect(pool.waitingCount).to.equal(1);
      await statement;
      expect(pool.waitingCount, 'handed over as the statement answered').to.equal(0);
      (await waiting).release();
    } finally {
      await pool.end();
    }
  });

  it('discards a connection the database ended between statements, and sends the next on a fresh one', async () => {
    const pool = openPool(freshDatabase(), 4);
    try {
      const held = new HeldConnection(pool);
      const first = await pidOf(held);
      await pool.query('SELECT pg_terminate_backend($1)', [first]);
      let next: number | null = null;
      for (let attempt = 1; next === null; attempt++) {
        try {
          next = await pidOf(held);
        } catch (error) {
          // The end may reach the driver only with the statement: a lost connection, once.
          expect(isConnectionLost(error), String(error)).to.equal(true);
          expect(attempt).to.equal(1);
        }
      }
      expect(next).to.not.equal(first);
    } finally {
      await pool.end();
    }
  });
});
