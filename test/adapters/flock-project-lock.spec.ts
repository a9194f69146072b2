import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { FlockProjectLock } from '../../adapters/flock-project-lock.js';
import { thrownBy } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

const LOCK_MODULE = path.resolve(__dirname, '../../adapters/flock-project-lock.js');

/**
 * Another process that takes the lock in `mode` and holds it until its stdin closes; resolves once
 * it holds it.
 */
async function holderProcess(lockFile: string, mode: 'shared' | 'exclusive'): Promise<ChildProcessWithoutNullStreams> {
  const script = `
    const { FlockProjectLock } = require(${JSON.stringify(LOCK_MODULE)});
    new FlockProjectLock(${JSON.stringify(lockFile)}).withLock(${JSON.stringify(mode)}, () => {
      process.stdout.write('locked\\n');
      require('node:fs').readSync(0, Buffer.alloc(1)); // hold until the parent closes stdin
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.on('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return child;
}

function release(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.stdin.end();
  });
}

describe('FlockProjectLock', () => {
  const tempDir = useTempDir();
  const lockFile = () => path.join(tempDir(), 'lock');
  const sut = () => new FlockProjectLock(lockFile(), 150);

  it('runs the work and returns its result', () => {
    expect(sut().withLock('exclusive', () => 42)).to.equal(42);
  });

  it('excludes a second process from the exclusive lock until the holder lets go', async () => {
    const holder = await holderProcess(lockFile(), 'exclusive');
    let ran = false;
    try {
      const error = thrownBy(() => sut().withLock('exclusive', () => (ran = true)));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.include({ cause: 'ELOCKTIMEOUT', path: lockFile() });
      expect(thrownBy(() => sut().withLock('shared', () => (ran = true))).code).to.equal('STORAGE_ERROR');
      expect(ran).to.equal(false);
    } finally {
      await release(holder);
    }
    expect(sut().withLock('exclusive', () => 'mine')).to.equal('mine');
  });

  it('lets readers share the lock, but not with a writer', async () => {
    const holder = await holderProcess(lockFile(), 'shared');
    try {
      expect(sut().withLock('shared', () => 'read')).to.equal('read');
      expect(thrownBy(() => sut().withLock('exclusive', () => 'write')).code).to.equal('STORAGE_ERROR');
    } finally {
      await release(holder);
    }
  });

  it('is released when its holder is killed', async () => {
    const holder = await holderProcess(lockFile(), 'exclusive');
    await new Promise((resolve) => {
      holder.on('exit', resolve);
      holder.kill('SIGKILL');
    });
    expect(sut().withLock('exclusive', () => 'after')).to.equal('after');
  });

  it('reports a lock file that cannot be opened as STORAGE_ERROR with the OS cause', () => {
    const error = thrownBy(() => new FlockProjectLock(path.join(tempDir(), 'missing-dir', 'lock'), 150).withLock('shared', () => null));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details.cause).to.equal('ENOENT');
  });
});
