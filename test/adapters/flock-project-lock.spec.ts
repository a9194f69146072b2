import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { FlockProjectLock } from '../../adapters/flock-project-lock.js';
import { rejectionOf } from '../support/failures.js';
import { useTempDir } from '../support/temp-dir.js';

const LOCK_MODULE = path.resolve(__dirname, '../../adapters/flock-project-lock.js');

/**
 * Another process that takes the lock in `mode` and holds it until its stdin closes; resolves once
 * it holds it.
 */
async function holderProcess(lockFile: string, mode: 'shared' | 'exclusive'): Promise<ChildProcessWithoutNullStreams> {
  const script = `
    const { FlockProjectLock } = require(${JSON.stringify(LOCK_MODULE)});
    new FlockProjectLock(${JSON.stringify(lockFile)}).withLock(${JSON.stringify(mode)}, () => new Promise((resolve) => {
      process.stdout.write('locked\\n');
      process.stdin.on('end', resolve).resume(); // hold until the parent closes stdin
    }));`;
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

  it('runs the work and resolves to its result, sync or async', async () => {
    expect(await sut().withLock('exclusive', () => 42)).to.equal(42);
    expect(await sut().withLock('shared', async () => 'later')).to.equal('later');
  });

  it('releases the lock when the work rejects', async () => {
    const error = await rejectionOf<Error>(() => sut().withLock('exclusive', async () => Promise.reject(new Error('boom'))));
    expect(error.message).to.equal('boom');
    expect(await sut().withLock('exclusive', () => 'free')).to.equal('free');
  });

  it('serializes two exclusive holders in one process', async () => {
    const order: string[] = [];
    const hold = (name: string) =>
      sut().withLock('exclusive', async () => {
        order.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(order).to.deep.equal(['a in', 'a out', 'b in', 'b out']);
  });

  it('keeps the event loop running while it waits', async () => {
    const holder = await holderProcess(lockFile(), 'exclusive');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      await rejectionOf(() => new FlockProjectLock(lockFile(), 300).withLock('exclusive', () => null));
    } finally {
      clearInterval(ticker);
      await release(holder);
    }
    expect(ticks).to.be.greaterThan(0);
  });

  it('creates no lock file when asked not to, and then runs the work unlocked', async () => {
    expect(await sut().withLock('shared', () => 'read', { create: false })).to.equal('read');
    expect(existsSync(lockFile())).to.equal(false);
  });

  it('excludes a second process from the exclusive lock until the holder lets go', async () => {
    const holder = await holderProcess(lockFile(), 'exclusive');
    let ran = false;
    try {
      const error = await rejectionOf(() => sut().withLock('exclusive', () => (ran = true)));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.include({ cause: 'ELOCKTIMEOUT', path: lockFile() });
      expect((await rejectionOf(() => sut().withLock('shared', () => (ran = true)))).code).to.equal('STORAGE_ERROR');
      expect(ran).to.equal(false);
    } finally {
      await release(holder);
    }
    expect(await sut().withLock('exclusive', () => 'mine')).to.equal('mine');
  });

  it('lets readers share the lock, but not with a writer', async () => {
    const holder = await holderProcess(lockFile(), 'shared');
    try {
      expect(await sut().withLock('shared', () => 'read')).to.equal('read');
      expect((await rejectionOf(() => sut().withLock('exclusive', () => 'write'))).code).to.equal('STORAGE_ERROR');
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
    expect(await sut().withLock('exclusive', () => 'after')).to.equal('after');
  });

  it('reports a lock file that cannot be opened as STORAGE_ERROR with the OS cause', async () => {
    const error = await rejectionOf(() => new FlockProjectLock(path.join(tempDir(), 'missing-dir', 'lock'), 150).withLock('shared', () => null));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details.cause).to.equal('ENOENT');
  });
});
