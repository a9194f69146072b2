import { expect } from 'chai';
import { closestTo, didYouMean } from '../../domain/suggestions.js';

describe('suggestions (closestTo, didYouMean)', () => {
  const commands = ['take', 'status', 'state', 'show', 'submit', 'add-task', 'deprecate-knowledge'];

  it('finds a swapped, missing, extra or wrong letter, closest first', () => {
    expect(closestTo('tkae', commands)).to.deep.equal(['take']);
    expect(closestTo('stauts', commands)).to.deep.equal(['status', 'state']);
    expect(closestTo('--intiative', ['--initiative', '--title', '--tags'])).to.deep.equal(['--initiative']);
    expect(closestTo('ad-task', commands)).to.deep.equal(['add-task']);
  });

  it('puts a match but for case first, and a word the typed text begins after the slips', () => {
    expect(closestTo('t-abc', ['T-Abc', 'T-abd', 'G-1'])).to.deep.equal(['T-Abc', 'T-abd']);
    expect(closestTo('deprecate', commands)).to.deep.equal(['deprecate-knowledge']);
  });

  it('suggests nothing far-fetched, nothing equal to what was typed, and at most three', () => {
    expect(closestTo('frobnicate', commands)).to.deep.equal([]);
    expect(closestTo('take', ['take'])).to.deep.equal([]);
    expect(closestTo('ab', ['aa', 'ac', 'ad', 'ae'])).to.have.length(3);
  });

  it('phrases one or more suggestions, and nothing for none', () => {
    expect(didYouMean([])).to.equal('');
    expect(didYouMean(['take'])).to.equal(': did you mean take?');
    expect(didYouMean(['status', 'state', 'show'])).to.equal(': did you mean status, state or show?');
  });
});
