import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitingLineFor } from '../../adapters/lock-queue.js';
import { useTempDir } from '../support/temp-dir.js';

const QUEUE_MODULE = path.resolve(__dirname, '../../adapters/lock-queue.js');

const timedOut = () => new Error('timed out in line');

/**
 * `count` processes that each join the waiting line `line` of `stateDir` `rounds` times, append
 * `in <process>` and then `out <process>` to `log` while first in it, and leave, pausing at random
 * between rounds so the line often empties and is removed while others are joining it.
 */
async function joinersOfOneLine(stateDir: string, line: string, log: string, count: number, rounds: number): Promise<void> {
  const script = (index: number) => `
    const { appendFileSync } = require('fs');
    const { waitingLineFor } = require(${JSON.stringify(QUEUE_MODULE)});
    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    (async () => {
      for (let round = 0; round < ${rounds}; round++) {
        const ticket = await waitingLineFor(${JSON.stringify(stateDir)}, ${JSON.stringify(line)}).enter(Date.now() + 20000, () => new Error('timed out'));
        appendFileSync(${JSON.stringify(log)}, 'in ${index}\\n');
        await pause(Math.random() * 2);
        appendFileSync(${JSON.stringify(log)}, 'out ${index}\\n');
        ticket.leave();
        await pause(Math.random() * 4);
      }
    })().catch((error) => { process.stderr.write(String(error)); process.exit(1); });`;
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['-e', script(index)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let errors = '';
        child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`joiner ${index} exited ${code}: ${errors}`))));
      }),
    ),
  );
}

describe('LockQueue: a waiting line', function () {
  this.timeout(60_000);
  const tempDir = useTempDir();
  const stateDir = () => {
    writeFileSync(path.join(tempDir(), 'lock'), '', { flag: 'a' });
    return tempDir();
  };

  it('is removed, directory and all, when its last waiter leaves', async () => {
    const sut = waitingLineFor(stateDir(), 'next []')!;
    const first = await sut.enter(Date.now() + 5_000, timedOut);
    const behind = waitingLineFor(stateDir(), 'next []')!.enter(Date.now() + 5_000, timedOut);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(sut.dir)).to.equal(true);
    first.leave();
    const second = await behind;
    expect(existsSync(sut.dir), 'kept while the second is in it').to.equal(true);
    second.leave();
    expect(existsSync(sut.dir)).to.equal(false);
    // And a line made again works as the first did.
    (await sut.enter(Date.now() + 5_000, timedOut)).leave();
    expect(existsSync(sut.dir)).to.equal(false);
  });

  it('keeps one waiter first at a time while its directory is removed and made again under joiners', async () => {
    const log = path.join(tempDir(), 'log');
    writeFileSync(log, '');
    await joinersOfOneLine(stateDir(), 'race', log, 8, 25);
    const entries = readFileSync(log, 'utf8').trim().split('\n');
    expect(entries).to.have.length(8 * 25 * 2);
    // First in line, one at a time: every `in` is followed by the same process's `out`.
    const overlaps = entries.filter((entry, index) => index % 2 === 1 && entry !== entries[index - 1]!.replace('in', 'out'));
    expect(overlaps).to.deep.equal([]);
    expect(existsSync(waitingLineFor(stateDir(), 'race')!.dir)).to.equal(false);
  });

  it('is named apart for each lock file, though a new one gets a deleted one\'s inode', () => {
    const before = waitingLineFor(stateDir(), 'next []')!.dir;
    const lock = path.join(tempDir(), 'lock');
    unlinkSync(lock);
    writeFileSync(lock, '');
    expect(waitingLineFor(stateDir(), 'next []')!.dir).to.not.equal(before);
    expect(waitingLineFor(stateDir(), 'next ["billing"]')!.dir).to.not.equal(waitingLineFor(stateDir(), 'next []')!.dir);
  });
});
