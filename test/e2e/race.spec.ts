import { expect } from 'chai';
import { Sandbox } from '../support/cli.js';

const RACERS = 8;
const WRITERS = 10;

/** Claims and writes are decided under the project lock: real processes racing, no sleeps. */
describe('e2e: concurrent processes', function () {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'demo', '--as', 'planner']);
  });
  afterEach(() => sandbox.remove());

  it(`${RACERS} agents racing take on one task: exactly one wins, the rest get ALREADY_CLAIMED`, async () => {
    await sandbox.ok(['add-task', 'T-prize', '--initiative', 'demo', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'planner']);
    const agents = Array.from({ length: RACERS }, (_, i) => `agent-${i}`);
    const results = await Promise.all(agents.map((agent) => sandbox.run(['take', 'T-prize', '--as', agent])));

    const winners = results.flatMap((result, i) => (result.code === 0 ? [agents[i]] : []));
    expect(winners, 'one winner').to.have.length(1);
    const losers = results.filter((result) => result.code !== 0);
    expect(losers.map((result) => result.json?.error?.code)).to.deep.equal(Array(RACERS - 1).fill('ALREADY_CLAIMED'));
    for (const loser of losers) expect(loser.json.error.details.claimed_by).to.equal(winners[0]);

    const state = await sandbox.ok(['state']);
    expect(state.nodes['T-prize'].claim.by).to.equal(winners[0]);
    expect(state.nodes['T-prize'].revision).to.equal(2);
    expect(state.log.filter((entry: any) => entry.op === 'take')).to.have.length(1);
  });

  it(`${WRITERS} processes adding tasks at once lose none`, async () => {
    const before = await sandbox.ok(['state']);
    const ids = Array.from({ length: WRITERS }, (_, i) => `T-${i}`);
    const results = await Promise.all(
      ids.map((id) => sandbox.run(['add-task', id, '--initiative', 'demo', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', `writer-${id}`])),
    );
    expect(results.map((result) => result.code)).to.deep.equal(Array(WRITERS).fill(0));

    const state = await sandbox.ok(['state']);
    expect(Object.keys(state.nodes).sort()).to.deep.equal([...ids].sort());
    expect(state.revision).to.equal(before.revision + WRITERS);
    expect(state.log.slice(-WRITERS).map((entry: any) => entry.revision)).to.deep.equal(Array.from({ length: WRITERS }, (_, i) => before.revision + 1 + i));
  });

  /**
   * Writers load the project before taking the lock and catch up under it (issue 28): whatever
   * another process did meanwhile (appended, wrote a new checkpoint, replaced the state whole),
   * each commits on the state as it is then. Every acknowledged note is there exactly once, none
   * that was not acknowledged, and the log's revisions follow one another.
   */
  describe('writers that loaded before the lock', () => {
    const NOTE_WRITERS = 4;
    const NOTES_EACH = 6;
    const task = ['add-task', 'T-1', '--initiative', 'demo', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'planner'];
    /** Past the smallest checkpoint threshold (32 KiB of ledger tail): each such note writes a new checkpoint. */
    const BIG = 'x'.repeat(40 * 1024);

    /** Notes on T-1 from racing writers: which were acknowledged, and when each command started. */
    async function writers(): Promise<{ text: string; started: number }[]> {
      const acked: { text: string; started: number }[] = [];
      await Promise.all(
        Array.from({ length: NOTE_WRITERS }, async (_, writer) => {
          for (let note = 0; note < NOTES_EACH; note++) {
            const text = `w${writer}-${note}`;
            const started = Date.now();
            const result = await sandbox.run(['add-note', 'T-1', text, '--as', `writer-${writer}`]);
            if (result.code === 0) acked.push({ text, started });
            else expect(result.json?.error?.code, result.stdout).to.equal('NODE_NOT_FOUND');
          }
        }),
      );
      return acked;
    }

    async function assertConsecutive(state: any): Promise<void> {
      const revisions = state.log.map((entry: any) => entry.revision);
      expect(revisions).to.deep.equal(Array.from({ length: revisions.length }, (_, at) => revisions[0] + at));
      expect(revisions.at(-1)).to.equal(state.revision);
    }

    it('while another process writes new checkpoints, lose no note and repeat none', async () => {
      await sandbox.ok(task);
      const [acked, big] = await Promise.all([
        writers(),
        (async () => {
          const texts: string[] = [];
          for (let at = 0; at < 4; at++) texts.push((await sandbox.ok(['add-note', 'T-1', `big-${at}-${BIG}`, '--as', 'bulky'])).node.notes.at(-1).text);
          return texts;
        })(),
      ]);
      expect(acked).to.have.length(NOTE_WRITERS * NOTES_EACH);
      const state = await sandbox.ok(['state']);
      expect(state.nodes['T-1'].notes.map((note: any) => note.text).sort()).to.deep.equal([...acked.map((note) => note.text), ...big].sort());
      await assertConsecutive(state);
      expect((await sandbox.ok(['show', 'T-1'])).node.notes).to.deep.equal(state.nodes['T-1'].notes);
    });

    it('while another process replaces the state (init --force), commit on the state that replaced it', async () => {
      await sandbox.ok(task);
      let recreated = 0;
      const [acked] = await Promise.all([
        writers(),
        (async () => {
          for (let at = 0; at < 2; at++) {
            await sandbox.ok(['init', '--force', '--as', 'recovery']);
            await sandbox.ok(['add-initiative', 'demo', '--as', 'planner']);
            await sandbox.ok(task);
            recreated = Date.now();
          }
        })(),
      ]);
      const state = await sandbox.ok(['state']);
      const texts = state.nodes['T-1'].notes.map((note: any) => note.text);
      // Each note once, each acknowledged; every one whose command started after the last replacement is there.
      expect(new Set(texts).size).to.equal(texts.length);
      expect(texts.filter((text: string) => !acked.some((note) => note.text === text))).to.deep.equal([]);
      expect(acked.filter((note) => note.started > recreated && !texts.includes(note.text))).to.deep.equal([]);
      await assertConsecutive(state);
      // The node's revision counts its creation and its notes in this state alone: none came from a replaced one.
      expect(state.log.filter((entry: any) => entry.node === 'T-1').length).to.equal(1 + texts.length);
    });
  });
});

