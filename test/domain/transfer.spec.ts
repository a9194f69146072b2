import { expect } from 'chai';
import { emptyGraph, type State } from '../../domain/model.js';
import { isPristine, transferredState, type Transfer } from '../../domain/transfer.js';
import { thrownBy } from '../support/graphs.js';
import { AT, sampleState } from '../support/states.js';

const pristine = (): State => ({ ...emptyGraph(), log: [] });
const at = (revision: number): State => ({ ...sampleState(), revision });
const transfer = (incoming: State, expected: number | null, extra: Partial<Transfer> = {}): Transfer => ({
  direction: 'push',
  incoming,
  expected,
  force: false,
  at: AT,
  by: 'alice',
  ...extra,
});

describe('transfers (spec 4.5 rules 2-4)', () => {
  it('a pristine state is one nothing was ever committed to', () => {
    expect(isPristine(pristine())).to.equal(true);
    expect(isPristine(at(0))).to.equal(false);
    expect(isPristine({ ...pristine(), revision: 1 })).to.equal(false);
  });

  it('without a baseline, only an absent or pristine destination is replaced', () => {
    expect(transferredState(null, transfer(at(7), null)).revision).to.equal(8);
    expect(transferredState(pristine(), transfer(at(7), null)).nodes).to.deep.equal(at(7).nodes);
    const refused = thrownBy(() => transferredState(at(3), transfer(at(7), null)));
    expect(refused.code).to.equal('STATE_REVISION_CONFLICT');
    expect(refused.details).to.deep.equal({ direction: 'push', destination_revision: 3, expected_revision: null, source_revision: 7 });
  });

  it('with a baseline, compares the destination revision and names both on conflict', () => {
    const replaced = transferredState(at(5), transfer(at(9), 5));
    expect(replaced.revision).to.equal(10);
    expect(replaced.log).to.deep.equal(at(9).log);
    const refused = thrownBy(() => transferredState(at(6), transfer(at(9), 5, { direction: 'pull' })));
    expect(refused.code).to.equal('STATE_REVISION_CONFLICT');
    expect(refused.details).to.include({ direction: 'pull', destination_revision: 6, expected_revision: 5 });
    expect(refused.message).to.match(/revision 6.*revision 5/);
  });

  it('--force replaces whatever is there and the winner logs transfer.<direction> with the replaced revision', () => {
    const forced = transferredState(at(40), transfer(at(9), 5, { force: true, direction: 'pull' }));
    expect(forced.revision).to.equal(41);
    expect(forced.log.at(-1)).to.deep.equal({ revision: 41, at: AT, by: 'alice', op: 'transfer.pull', node: null, replaced_revision: 40 });
    expect(forced.log.slice(0, -1)).to.deep.equal(at(9).log);
  });

  it('the new state moves past both sides: revision and fence generation never go back', () => {
    const result = transferredState({ ...at(2), fence_generation: 4 }, transfer({ ...at(9), fence_generation: 2 }, 2));
    expect(result).to.include({ revision: 10, fence_generation: 4 });
  });
});
