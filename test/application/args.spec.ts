import { expect } from 'chai';
import { jsonObject, nonEmptyText, oneOf, optional, parseArgs, required, textList } from '../../application/args.js';
import { thrownBy } from '../support/graphs.js';

describe('args (operation argument parsing)', () => {
  const spec = {
    title: required(nonEmptyText(), 'Title'),
    blocked_by: required(textList(), 'Blockers'),
    tags: optional(textList(), 'Tags'),
    meta: optional(jsonObject(), 'Meta'),
  };
  const sut = (raw: unknown) => parseArgs('add-task', raw, spec);

  it('returns the present arguments, leaving absent optional ones out', () => {
    expect(sut({ title: 'x', blocked_by: [], tags: undefined })).to.deep.equal({ title: 'x', blocked_by: [] });
  });

  it('reports an absent (or null) required argument as MISSING_FIELD with its flag', () => {
    for (const raw of [{ blocked_by: [] }, { title: null, blocked_by: [] }]) {
      const error = thrownBy(() => sut(raw));
      expect(error.code).to.equal('MISSING_FIELD');
      expect(error.details).to.deep.equal({ operation: 'add-task', field: 'title', flag: '--title', missing: [{ field: 'title', flag: '--title' }] });
    }
    expect(thrownBy(() => sut({ title: 'x' })).details.flag).to.equal('--blocked-by');
  });

  it('reports every absent required argument at once, before any malformed one', () => {
    const error = thrownBy(() => sut({ meta: [1] }));
    expect(error.code).to.equal('MISSING_FIELD');
    expect(error.message).to.equal('add-task requires --title and --blocked-by');
    expect(error.details).to.deep.equal({
      operation: 'add-task',
      field: 'title',
      flag: '--title',
      missing: [
        { field: 'title', flag: '--title' },
        { field: 'blocked_by', flag: '--blocked-by' },
      ],
    });
  });

  it('spells a missing positional argument as <name>, not as a flag', () => {
    const error = thrownBy(() => parseArgs('show', {}, { id: required(nonEmptyText(), 'The node', { positional: true }) }));
    expect(error.code).to.equal('MISSING_FIELD');
    expect(error.message).to.equal('show requires <id>');
    expect(error.details).to.deep.equal({ operation: 'show', field: 'id', argument: '<id>', missing: [{ field: 'id', argument: '<id>' }] });
  });

  it('reports a present but malformed argument as INVALID_ARGUMENT', () => {
    for (const raw of [{ title: '', blocked_by: [] }, { title: 'x', blocked_by: 'G1' }, { title: 'x', blocked_by: [], meta: [1] }]) {
      const error = thrownBy(() => sut(raw));
      expect(error.code, JSON.stringify(raw)).to.equal('INVALID_ARGUMENT');
      expect(error.details.errors).to.be.an('array').that.is.not.empty;
    }
  });

  it('reports an argument the operation does not know as INVALID_ARGUMENT naming it', () => {
    const error = thrownBy(() => sut({ title: 'x', blocked_by: [], colour: 'red' }));
    expect(error.code).to.equal('INVALID_ARGUMENT');
    expect(error.details).to.include({ field: 'colour', flag: '--colour' });
  });

  it('names the closest flags of an argument it does not know in the message and details.suggestions', () => {
    const error = thrownBy(() => sut({ title: 'x', blocked_by: [], tgas: ['a'] }));
    expect(error.message).to.equal('add-task does not take --tgas: did you mean --tags?');
    expect(error.details).to.deep.equal({ operation: 'add-task', field: 'tgas', flag: '--tgas', suggestions: ['--tags'] });
  });

  it('says what a value should be without the validator\'s path, and suggests the closest choice', () => {
    const error = thrownBy(() => parseArgs('status', { kind: 'tsk' }, { kind: optional(oneOf(['task', 'gate', 'knowledge'] as const), 'Kind') }));
    expect(error.message).to.equal('Invalid --kind: Expected one of "task", "gate", or "knowledge" (got "tsk"): did you mean task?');
    expect(error.details).to.deep.include({ suggestions: ['task'] });
    const item = thrownBy(() => sut({ title: 'x', blocked_by: ['a', 3] }));
    expect(item.details.errors).to.deep.equal(['item 1: Expected a string (got 3)']);
  });

  it('refuses arguments that are not an object with INVALID_ARGUMENT', () => {
    for (const raw of [null, [], 'title', 3]) expect(thrownBy(() => sut(raw)).code).to.equal('INVALID_ARGUMENT');
  });

  it('normalises lists the same for every driver: items trimmed, empty items dropped', () => {
    expect(sut({ title: 'x', blocked_by: [' G1', '', 'G2 '], tags: [' a', 'b', ' '] })).to.deep.equal({
      title: 'x',
      blocked_by: ['G1', 'G2'],
      tags: ['a', 'b'],
    });
  });
});
