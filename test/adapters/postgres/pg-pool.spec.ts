import { expect } from 'chai';
import { databaseError, openPool, withTransaction } from '../../../adapters/postgres/pg-pool.js';
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
});
