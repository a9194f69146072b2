import { expect } from 'chai';
import sinon from 'sinon';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, type BigIntStats, type StatOptions, type Stats } from 'node:fs';
import gracefulFs from 'graceful-fs';
import path from 'node:path';
import { FlockProjectLock, stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { flock } from '../../adapters/flock.js';
import { queueFor } from '../../adapters/lock-queue.js';
import { rejectionOf } from '../support/failures.js';
import { useTempDir } from '../support/temp-dir.js';

const LOCK_MODULE = path.resolve(__dirname, '../../adapters/flock-project-lock.js');
const QUEUE_MODULE = path.resolve(__dirname, '../../adapters/lock-queue.js');

/**
 * Another process that takes the lock in `mode` and holds it until its stdin closes; resolves once
 * it holds it.
 */
async function holderProcess(lockFile: string, mode: 'shared' | 'exclusive', fair = false): Promise<ChildProcessWithoutNullStreams> {
  const script = `
    const { FlockProjectLock } = require(${JSON.stringify(LOCK_MODULE)});
    new FlockProjectLock(${JSON.stringify(lockFile)}, undefined, { fair: ${fair} }).withLock(${JSON.stringify(mode)}, () => new Promise((resolve) => {
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

/** Resolves once `condition` holds, looking every 10 ms; fails after 10 s. */
async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether the line in `queue` ends with a ticket of process `pid`. */
function tailIsOf(queue: string, pid: number | undefined): boolean {
  const tail = path.join(queue, 'tail');
  return existsSync(tail) && readFileSync(tail, 'utf8').startsWith(`${pid}-`);
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

/**
 * `count` processes that each take a project's lock (stateDirectoryLock, as every command does)
 * `rounds` times, holding it `holdMs`, with TASKDAG_LOCK_TIMEOUT_MS at `timeoutMs`. Resolves to
 * every attempt: when it asked, when it joined the line, when it got the lock (null: it failed),
 * and the error code. `lock`: an expression of the lock each process takes (`stateDir` in scope).
 */
interface Attempt {
  process: number;
  asked: number;
  /**
   * When the process wrote its name as the line's tail (LockQueue's swapTailNow, observed by
   * wrapping it), which fixes who is ahead of it; `asked` when it took the lock without joining.
   * A process descheduled between asking and joining is in nobody's line yet, so what others
   * get then is not overtaking.
   */
  joined: number;
  /** Whether it joined the line (false: it took the lock at once, or the lock has no line). */
  inLine: boolean;
  got: number | null;
  error: string | null;
}
const FAIR_LOCK = `require(${JSON.stringify(LOCK_MODULE)}).stateDirectoryLock(stateDir)`;
async function contendingProcesses(stateDir: string, count: number, rounds: number, holdMs: number, timeoutMs: number, lock = FAIR_LOCK): Promise<Attempt[]> {
  const script = (index: number) => `
    const { LockQueue } = require(${JSON.stringify(QUEUE_MODULE)});
    require('fs-ext'); // loaded before the first ask, as a command has by the time it commits
    let joined = null;
    const swapTailNow = LockQueue.prototype.swapTailNow;
    LockQueue.prototype.swapTailNow = async function (...args) {
      const predecessor = await swapTailNow.apply(this, args);
      joined = Date.now();
      return predecessor;
    };
    const stateDir = ${JSON.stringify(stateDir)};
    const lock = ${lock};
    (async () => {
      const attempts = [];
      for (let round = 0; round < ${rounds}; round++) {
        joined = null;
        const asked = Date.now();
        try {
          const got = await lock.withLock('exclusive', () => {
            const got = Date.now();
            return new Promise((resolve) => setTimeout(() => resolve(got), ${holdMs}));
          });
          attempts.push({ process: ${index}, asked, joined: joined ?? asked, inLine: joined !== null, got, error: null });
        } catch (error) {
          attempts.push({ process: ${index}, asked, joined: joined ?? asked, inLine: joined !== null, got: null, error: (error.details && error.details.cause) || String(error) });
        }
      }
      process.stdout.write(JSON.stringify(attempts));
    })();`;
  const env = { ...process.env, TASKDAG_LOCK_TIMEOUT_MS: String(timeoutMs) };
  const runs = Array.from({ length: count }, (_, index) =>
    new Promise<Attempt[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script(index)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let errors = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Attempt[]) : reject(new Error(`contender ${index} exited ${code}: ${errors}`))));
    }),
  );
  return (await Promise.all(runs)).flat();
}

/**
 * For each attempt, the most times one other process got the lock after this one joined the line
 * and before it got it. A grant is stamped after it is made, a join after the name is written, so
 * a process ahead in the line can count once but never twice.
 */
function mostOvertakes(attempts: Attempt[]): number[] {
  return attempts.map((mine) => {
    const by = new Map<number, number>();
    for (const other of attempts) {
      if (other.process !== mine.process && other.got! >= mine.joined && other.got! < mine.got!) by.set(other.process, (by.get(other.process) ?? 0) + 1);
    }
    return Math.max(0, ...by.values());
  });
}

/** A process that joins the line of `stateDir`'s lock (held by another) and is killed there, once its name is the tail; resolves to it, exited. */
async function killedInLine(stateDir: string): Promise<ChildProcessWithoutNullStreams> {
  const waiter = spawn(process.execPath, ['-e', `require(${JSON.stringify(LOCK_MODULE)}).stateDirectoryLock(${JSON.stringify(stateDir)}).withLock('exclusive', () => null)`]);
  await waitUntil('the waiter in line', () => tailIsOf(queueOf(path.join(stateDir, 'lock')), waiter.pid));
  await new Promise((resolve) => {
    waiter.on('exit', resolve);
    waiter.kill('SIGKILL');
  });
  return waiter;
}

/** Where the line in front of `lockFile` is kept (LockQueue: this user's directory under TMPDIR, then the lock's identity). */
function queueOf(lockFile: string): string {
  const fd = openSync(lockFile, 'r');
  try {
    return queueFor(fd)!.dir;
  } finally {
    closeSync(fd);
  }
}

/**
 * This process sees `file` with the device and inode of `old`, a deleted file: what ext4 does
 * when it hands a freed inode to the next file made, which it does often but not always (another
 * process may take the inode first), so the case is made here every time rather than hoped for.
 * Only the identity changes: the birth time (and every other field) stays the new file's own.
 */
function seenWithDeviceAndInodeOf(file: string, old: BigIntStats): void {
  const { ino } = statSync(file, { bigint: true });
  expect(statSync(file, { bigint: true }).birthtimeNs, 'a new file, born after the old').to.not.equal(old.birthtimeNs);
  const fstat = gracefulFs.fstatSync.bind(gracefulFs) as (fd: number, options?: StatOptions) => Stats | BigIntStats;
  sinon.stub(gracefulFs, 'fstatSync').callsFake(((fd: number, options?: StatOptions) => {
    const stats = fstat(fd, options);
    if (typeof stats.ino === 'bigint' && stats.ino === ino) Object.assign(stats, { dev: old.dev, ino: old.ino });
    return stats;
  }) as typeof gracefulFs.fstatSync);
}

describe('stateDirectoryLock (first come, first served)', function () {
  this.timeout(60_000);
  const tempDir = useTempDir();

  it('gives 32 contending processes the lock in turn: none fails ELOCKTIMEOUT, none is overtaken by another more than once', async () => {
    // 320 holds of 10 ms; polling a non-blocking flock failed 3 to 15 of them at this timeout
    // (a loser kept missing the moment the lock was free), while a turn in line waits for at
    // most the 31 others: about 0.4 s here.
    const attempts = await contendingProcesses(tempDir(), 32, 10, 10, 2_500);
    expect(attempts.filter((attempt) => attempt.error !== null).map((attempt) => attempt.error)).to.deep.equal([]);
    // First come, first served from the moment a process is in line: each other process passes it
    // at most once (when it was ahead in the line; to go again it must join behind). Polling, a
    // loser was passed 10 times by others, every round they had.
    expect(Math.max(...mostOvertakes(attempts))).to.be.at.most(1);
    // The join is seen (were swapTailNow renamed, every join would fall back to the ask unseen).
    expect(attempts.filter((attempt) => attempt.inLine).length).to.be.above(attempts.length / 2);
    expect(readdirSync(queueOf(path.join(tempDir(), 'lock')))).to.deep.equal(['tail']);
    expect(readdirSync(tempDir())).to.deep.equal(['lock']);
  });

  it('finds an unfair lock out by the same measure: polling the flock without the line, a process is passed by another again and again', async () => {
    const polling = `new (require(${JSON.stringify(LOCK_MODULE)}).FlockProjectLock)(require('node:path').join(stateDir, 'lock'))`;
    const attempts = await contendingProcesses(tempDir(), 16, 6, 10, 30_000, polling);
    expect(attempts.filter((attempt) => attempt.error !== null)).to.deep.equal([]);
    expect(Math.max(...mostOvertakes(attempts))).to.be.above(1);
  });

  it('lets a lone writer take the lock without a place in the line: no ticket, no line made', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    writeFileSync(lockFile, '');
    expect(await stateDirectoryLock(tempDir()).withLock('exclusive', () => 'alone')).to.equal('alone');
    expect(existsSync(queueOf(lockFile))).to.equal(false);
    expect(readdirSync(tempDir())).to.deep.equal(['lock']);
  });

  it('keeps writers in line for a second after one joined it, then lets a lone writer skip it and removes the line', async () => {
    const lock = stateDirectoryLock(tempDir());
    const tail = () => readFileSync(path.join(queueOf(path.join(tempDir(), 'lock')), 'tail'), 'utf8');
    // Two writers at once: the second joins the line.
    let letGo: () => void = () => undefined;
    const holding = lock.withLock('exclusive', () => new Promise<void>((resolve) => (letGo = resolve)));
    const second = lock.withLock('exclusive', () => 'second');
    await waitUntil('the second writer in line', () => existsSync(queueOf(path.join(tempDir(), 'lock'))) && tail() !== '');
    letGo();
    await holding;
    expect(await second).to.equal('second');
    // Right after, a writer finds the line empty and the lock free, but writers contended a moment ago: it joins the line.
    const afterContention = tail();
    expect(await lock.withLock('exclusive', () => 'third')).to.equal('third');
    expect(tail()).to.not.equal(afterContention);
    // Nobody joined for a second: a lone writer takes the lock without joining, and takes away the empty line.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await lock.withLock('exclusive', () => 'fourth')).to.equal('fourth');
    expect(existsSync(queueOf(path.join(tempDir(), 'lock')))).to.equal(false);
    expect(await lock.withLock('exclusive', () => 'fifth')).to.equal('fifth');
    expect(existsSync(queueOf(path.join(tempDir(), 'lock')))).to.equal(false);
  });

  it('gives a new lock file that got a deleted one\'s inode a line of its own, not the dead line of the old', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    const holder = await holderProcess(lockFile, 'exclusive', true);
    const oldLine = queueOf(lockFile);
    // A process waiting in line is killed: the old line ends with its ticket, which a writer joining would have to find dead.
    const waiter = await killedInLine(tempDir());
    await release(holder);
    const old = statSync(lockFile, { bigint: true });
    unlinkSync(lockFile);
    writeFileSync(lockFile, '');
    seenWithDeviceAndInodeOf(lockFile, old);
    try {
      expect(queueOf(lockFile)).to.not.equal(oldLine);
      expect(await stateDirectoryLock(tempDir()).withLock('exclusive', () => 'new')).to.equal('new');
      expect(existsSync(queueOf(lockFile)), 'a line for the new lock').to.equal(false);
      expect(tailIsOf(oldLine, waiter.pid), 'the old line untouched').to.equal(true);
    } finally {
      rmSync(oldLine, { recursive: true, force: true });
    }
  });

  it('joins the line as soon as the tail is free, waiting for it in the kernel rather than polling it', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    writeFileSync(lockFile, '');
    const line = queueOf(lockFile);
    mkdirSync(line, { recursive: true, mode: 0o700 });
    // Another process holds the tail's flock, as a joiner swapping its name in does, for 300 ms.
    const tailHolder = spawn(process.execPath, [
      '-e',
      `const fd = require('fs').openSync(${JSON.stringify(path.join(line, 'tail'))}, 'a+');
       require('fs-ext').flockSync(fd, 'ex');
       process.stdout.write('locked\\n');
       setTimeout(() => process.stdout.write('released ' + Date.now() + '\\n'), 300);`,
    ]);
    let said = '';
    await new Promise<void>((resolve) => tailHolder.stdout.on('data', (chunk: Buffer) => (said += chunk) && said.includes('locked') && resolve()));
    const exited = new Promise((resolve) => tailHolder.on('exit', resolve));
    const tries = sinon.spy(flock(), 'flockSync');
    const got = await stateDirectoryLock(tempDir()).withLock('exclusive', () => Date.now());
    await exited;
    const released = Number(/released (\d+)/.exec(said)![1]);
    // Polling tried the tail every 0.5-2 ms, some 150 times while it was held; now: the ticket's
    // flock, one try at the tail, the project lock.
    expect(tries.callCount).to.be.at.most(6);
    expect(got - released).to.be.below(1_000);
    expect(readdirSync(line)).to.deep.equal(['tail']);
  });

  it('puts a writer behind one already in line, though the lock is free when it asks', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    const holder = await holderProcess(lockFile, 'exclusive', true);
    // The first in line waits behind the holder, and says when it gets the lock.
    const script = `require(${JSON.stringify(LOCK_MODULE)}).stateDirectoryLock(${JSON.stringify(tempDir())}).withLock('exclusive', () => new Promise((resolve) => { process.stdout.write(String(Date.now())); setTimeout(resolve, 200); }))`;
    const first = spawn(process.execPath, ['-e', script]);
    let firstGot = '';
    first.stdout.on('data', (chunk: Buffer) => (firstGot += chunk));
    const firstExited = new Promise((resolve) => first.on('exit', resolve));
    try {
      await waitUntil('the first in line', () => tailIsOf(queueOf(lockFile), first.pid));
    } finally {
      await release(holder);
    }
    // The lock is free, or about to be, and the first in line may not have taken it yet: this writer still goes second.
    const secondGot = await stateDirectoryLock(tempDir()).withLock('exclusive', () => Date.now());
    await firstExited;
    expect(firstGot).to.match(/^\d+$/);
    expect(Number(firstGot)).to.be.at.most(secondGot);
    expect(readdirSync(queueOf(lockFile))).to.deep.equal(['tail']);
  });

  it('passes the lock on when a process waiting in line is killed, and leaves no ticket of it', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    const holder = await holderProcess(lockFile, 'exclusive', true);
    // A second process waits in line behind the holder; it is killed while it waits.
    const queue = queueOf(lockFile);
    // The holder took the lock without a ticket (nobody was in line): the waiter may be the first to make the line.
    await killedInLine(tempDir());
    const third = stateDirectoryLock(tempDir()).withLock('exclusive', () => 'third');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await release(holder);
    expect(await third).to.equal('third');
    expect(readdirSync(queue)).to.deep.equal(['tail']);
  });

  it('lets a caller that timed out in line leave it, and the next one go', async () => {
    const lockFile = path.join(tempDir(), 'lock');
    const holder = await holderProcess(lockFile, 'exclusive', true);
    try {
      const error = await rejectionOf(() => new FlockProjectLock(lockFile, 150, { fair: true }).withLock('exclusive', () => 'never'));
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.include({ cause: 'ELOCKTIMEOUT', path: lockFile });
    } finally {
      await release(holder);
    }
    expect(await stateDirectoryLock(tempDir()).withLock('exclusive', () => 'next')).to.equal('next');
    expect(readdirSync(queueOf(lockFile))).to.deep.equal(['tail']);
  });

  it('waits without a line when the temp directory has no private place for it', async () => {
    const tmp = path.join(tempDir(), 'tmp');
    const shared = path.join(tmp, `taskdag-locks-${process.getuid!()}`);
    mkdirSync(shared, { recursive: true, mode: 0o777 });
    chmodSync(shared, 0o777); // others could write there: not used
    const script = `require(${JSON.stringify(LOCK_MODULE)}).stateDirectoryLock(${JSON.stringify(tempDir())}).withLock('exclusive', () => process.stdout.write('ran'))`;
    const child = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 10_000 });
    expect(child.stdout).to.equal('ran');
    expect(readdirSync(shared)).to.deep.equal([]);
  });

  it('serves callers of one process in the order they asked', async () => {
    const order: number[] = [];
    const lock = stateDirectoryLock(tempDir());
    await Promise.all([0, 1, 2, 3, 4].map((index) => lock.withLock('exclusive', async () => {
      order.push(index);
      await new Promise((resolve) => setTimeout(resolve, 5));
    })));
    expect(order).to.deep.equal([0, 1, 2, 3, 4]);
  });
});
