import { expect } from 'chai';
import { statSync } from 'node:fs';
import path from 'node:path';
import { acquireServiceLock } from '../../../adapters/server/service-lock.js';
import { useTempDir } from '../../support/temp-dir.js';

describe('acquireServiceLock (flock on <stateHome>/.server.lock)', () => {
  const dir = useTempDir();

  it('is exclusive while held, 0600, and free again once released', () => {
    const sut = acquireServiceLock(dir());
    expect(statSync(path.join(dir(), '.server.lock')).mode & 0o777).to.equal(0o600);
    expect(() => acquireServiceLock(dir())).to.throw().with.property('code', 'SERVER_ALREADY_RUNNING');
    sut.release();
    acquireServiceLock(dir()).release();
  });

  it('a state home that does not exist is a STORAGE_ERROR', () => {
    expect(() => acquireServiceLock(path.join(dir(), 'absent'))).to.throw().with.property('code', 'STORAGE_ERROR');
  });
});
