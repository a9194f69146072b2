import { expect } from 'chai';
import { encodeRecord, readRecords } from '../../adapters/ledger-records.js';
import type { ChangeSet } from '../../domain/change-set.js';

const change = (revision: number): ChangeSet => ({ revision, log: [], nodes: {}, notes: [], edges: [], initiatives: {} });
const ledgerOf = (...parts: (Buffer | string)[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
const failureOf = (bytes: Buffer) => {
  try {
    readRecords(bytes, 'ledger.1.jsonl', 100);
  } catch (error) {
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a failure');
};

describe('ledger records', () => {
  it('reads back what it wrote, each record a JSON object holding the change set', () => {
    const bytes = ledgerOf(encodeRecord(change(1)), encodeRecord(change(2)));
    expect(readRecords(bytes, 'ledger.1.jsonl')).to.deep.equal({ records: [change(1), change(2)], end: bytes.length });
    const lines = bytes.toString().trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).change)).to.deep.equal([change(1), change(2)]);
  });

  for (const [name, tail] of [
    ['cut short', encodeRecord(change(2)).subarray(0, 30)],
    ['zeros ending in a newline (power lost after the size grew)', Buffer.concat([Buffer.alloc(60), Buffer.from('\n')])],
    ['a record whose bytes were changed', Buffer.from(encodeRecord(change(2)).toString().replace('"revision":2', '"revision":3'))],
    ['a complete line that is not JSON', Buffer.from('not json\n')],
  ] as const) {
    it(`takes an invalid last record (${name}) for a torn write, ending the valid records before it`, () => {
      const first = encodeRecord(change(1));
      expect(readRecords(ledgerOf(first, tail), 'ledger.1.jsonl')).to.deep.equal({ records: [change(1)], end: first.length });
    });
  }

  it('refuses an invalid record followed by a valid one: STORAGE_ERROR with both positions', () => {
    const first = encodeRecord(change(1));
    const damaged = Buffer.concat([Buffer.alloc(40), Buffer.from('\n')]);
    const error = failureOf(ledgerOf(first, damaged, encodeRecord(change(3))));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details).to.deep.include({ cause: 'EINVALID', offset: 100 + first.length, next_valid_offset: 100 + first.length + damaged.length });
  });

  it('refuses a cut in the middle of the ledger (a record cut short, then valid ones)', () => {
    const first = encodeRecord(change(1));
    const error = failureOf(ledgerOf(first, encodeRecord(change(2)).subarray(0, 25), encodeRecord(change(3))));
    expect(error.details.offset).to.equal(100 + first.length);
  });

  it('refuses lines written without a checksum (pre-0.1 development ledgers) as damage when records follow them', () => {
    const bare = JSON.stringify(change(1)) + '\n';
    const error = failureOf(ledgerOf(bare, encodeRecord(change(2))));
    expect([error.code, error.details.cause, error.details.offset, error.details.next_valid_offset]).to.deep.equal(['STORAGE_ERROR', 'EINVALID', 100, 100 + bare.length]);
  });

  it('refuses an intact record that is not a change set (written wrong, not torn)', () => {
    expect(failureOf(encodeRecord({ revision: 1, log: [] } as unknown as ChangeSet)).details.cause).to.equal('EINVALID');
  });

  it('reads a change set without its notes, as release 0.1.0 wrote one that appended none, as notes []', () => {
    const { notes: _notes, ...withoutNotes } = change(2);
    const read = readRecords(ledgerOf(encodeRecord(change(1)), encodeRecord(withoutNotes as ChangeSet)), 'ledger.1.jsonl');
    expect(read.records.map((record) => record.notes)).to.deep.equal([[], []]);
  });

  it('refuses an intact change set whose notes are not a list of appended notes as malformed', () => {
    const error = failureOf(ledgerOf(encodeRecord(change(1)), encodeRecord({ ...change(2), notes: 'none' } as unknown as ChangeSet)));
    expect([error.code, error.details.cause]).to.deep.equal(['STORAGE_ERROR', 'EINVALID']);
  });
});
