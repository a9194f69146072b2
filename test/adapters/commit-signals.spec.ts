import { expect } from 'chai';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommitSignals, CommitWatch } from '../../application/ports/commit-signals.js';
import { FsCommitSignals } from '../../adapters/fs-commit-signals.js';
import { AnnouncedCommits } from '../../adapters/server/announced-commits.js';
import { useTempDir } from '../support/temp-dir.js';

/** Past the file watch's 500 ms look at the directory: a waiter that was going to hear of a commit has. */
const QUIET_MS = 800;

/** A `next()` not yet answered, per watch: asked again, the same one is awaited (a second call would replace it). */
const pending = new WeakMap<CommitWatch, Promise<boolean>>();

/** Whether `watch` is told to look within `ms`: true (look), false (its wait is over), or 'nothing'. */
async function toldWithin(watch: CommitWatch, ms: number): Promise<boolean | 'nothing'> {
  const told = pending.get(watch) ?? watch.next();
  pending.set(watch, told);
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([told, new Promise<'nothing'>((resolve) => (timer = setTimeout(() => resolve('nothing'), ms)))]);
  clearTimeout(timer);
  if (answer !== 'nothing') pending.delete(watch);
  return answer;
}

/** The same lines, whoever carries the commits: the server's announcements, or another process's writes to local files. */
function linesOf(name: string, setup: () => { signals: CommitSignals; commit(): void }): void {
  describe(`${name}: waiters in lines`, function () {
    this.timeout(20_000);

    it('a commit wakes only the first waiter of a line; when it leaves, the next looks at once', async () => {
      const { signals, commit } = setup();
      const [first, second, third] = [1, 2, 3].map(() => signals.watch('p', 10_000, 'next []'));
      const other = signals.watch('p', 10_000, 'next ["billing"]');
      try {
        // The first of each line looks as soon as it is first: a commit before it joined is its to see.
        expect(await toldWithin(first!, 5_000)).to.equal(true);
        expect(await toldWithin(other, 5_000)).to.equal(true);
        commit();
        expect(await toldWithin(first!, 5_000)).to.equal(true);
        expect(await toldWithin(other, 5_000)).to.equal(true);
        expect(await toldWithin(second!, QUIET_MS), 'the second in line, at the commit').to.equal('nothing');
        expect(await toldWithin(third!, 10), 'the third in line, at the commit').to.equal('nothing');
        first!.close();
        expect(await toldWithin(second!, 5_000), 'the second, once the first left').to.equal(true);
        expect(await toldWithin(third!, QUIET_MS), 'the third, still behind the second').to.equal('nothing');
        second!.close();
        expect(await toldWithin(third!, 5_000)).to.equal(true);
      } finally {
        for (const watch of [first, second, third, other]) watch!.close();
      }
    });

    it('a waiter behind one that stays is told its wait is over when its time is up', async () => {
      const { signals } = setup();
      const first = signals.watch('p', 10_000, 'next []');
      const second = signals.watch('p', 300, 'next []');
      try {
        expect(await toldWithin(first, 5_000)).to.equal(true);
        const started = Date.now();
        expect(await toldWithin(second, 5_000)).to.equal(false);
        expect(Date.now() - started).to.be.within(200, 4_000);
      } finally {
        second.close();
        first.close();
      }
    });
  });
}

describe('CommitSignals (what a waiting next hears)', () => {
  const tempDir = useTempDir();

  linesOf('AnnouncedCommits', () => {
    const signals = new AnnouncedCommits();
    return { signals, commit: () => signals.announce('p') };
  });

  linesOf('FsCommitSignals', () => {
    const dir = path.join(tempDir(), 'p');
    mkdirSync(dir);
    // Its lock file, which names its lines: a waiting next has taken the project's lock once before it waits.
    writeFileSync(path.join(dir, 'lock'), '');
    return { signals: new FsCommitSignals((project) => path.join(tempDir(), project)), commit: () => appendFileSync(path.join(dir, 'ledger'), 'a commit\n') };
  });

  it("AnnouncedCommits says when a project's first wait begins and when its last one ends, for each project, and nothing in between", async () => {
    const watched: string[] = [];
    const sut = new AnnouncedCommits((project, value) => watched.push(`${project} ${value}`));
    const a = sut.watch('p1', 10_000, 'line');
    const b = sut.watch('p2', 10_000, 'line');
    const c = sut.watch('p2', 10_000, 'other line');
    expect(watched).to.deep.equal(['p1 true', 'p2 true']);
    a.close();
    a.close();
    expect(watched).to.deep.equal(['p1 true', 'p2 true', 'p1 false']);
    sut.announce('p2');
    expect(await b.next()).to.equal(true);
    b.close();
    expect(watched).to.have.length(3);
    c.close();
    expect(watched).to.deep.equal(['p1 true', 'p2 true', 'p1 false', 'p2 false']);
  });

  it('AnnouncedCommits ends every wait when the server stops', async () => {
    const sut = new AnnouncedCommits();
    const [first, second] = [sut.watch('p', 10_000, 'line'), sut.watch('p', 10_000, 'line')];
    expect(await first.next()).to.equal(true);
    sut.endAll();
    expect([await first.next(), await second.next()]).to.deep.equal([false, false]);
    first.close();
    second.close();
  });
});
