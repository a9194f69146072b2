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
});
