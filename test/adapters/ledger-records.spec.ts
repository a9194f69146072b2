import { expect } from 'chai';
import sinon from 'sinon';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { crc32 } from '../../adapters/crc32.js';
import { wasmChecks } from '../../adapters/crc32-wasm.js';
import { changeSetOf, encodeRecord, entriesNaming, keptPositions, readRecords } from '../../adapters/ledger-records.js';
import { historyOf } from '../../domain/history.js';
import type { LogEntry } from '../../domain/model.js';
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

  it('keeps the checkpoint positions a writer gives as the change set\'s last member, which a reader of the change set alone ignores', () => {
    const positions = { of: '149#258bbf8f', at: ['T-1', 4, 'K-2', 0] };
    const bytes = encodeRecord({ ...change(3), checkpoint_positions: positions });
    expect(bytes.toString()).to.match(/"initiatives":\{\},"checkpoint_positions":\{"of":"149#258bbf8f","at":\["T-1",4,"K-2",0\]\}\}\}\n$/);
    const [record] = readRecords(bytes, 'ledger.1.jsonl').records;
    expect(keptPositions(record!, '149#258bbf8f')).to.deep.equal(['T-1', 4, 'K-2', 0]);
    expect(keptPositions(record!, '149#258bbf8e'), 'kept for another checkpoint').to.equal(null);
    // An earlier release's check of a change set: the member is one it does not know, and the record is a change set.
    expect(changeSetOf(JSON.parse(bytes.toString()).change)).to.deep.equal({ ...change(3), checkpoint_positions: positions });
    expect(keptPositions(change(3), 'a')).to.equal(null);
    for (const malformed of [null, 'x', { of: 1, at: [] }, { at: [] }, { of: 'a', at: { 'T-1': 4 } }, { of: 'a', at: 'T-1' }]) {
      expect(keptPositions({ ...change(3), checkpoint_positions: malformed } as ChangeSet, 'a'), JSON.stringify(malformed)).to.equal(null);
    }
  });

  /** Record `record` with the byte at `at` (from its end when negative) made `byte`. */
  const withByte = (record: Buffer, at: number, byte: number) => {
    const changed = Buffer.from(record);
    changed[at < 0 ? changed.length + at : at] = byte;
    return changed;
  };
  const longRecord = encodeRecord({ ...change(2), log: [{ revision: 2, at: 'now', by: 'bob', op: 'add-note', node: 'T-1', note: 'x'.repeat(9000) }] });

  for (const [name, tail] of [
    ['cut short', encodeRecord(change(2)).subarray(0, 30)],
    ['cut short in its body', longRecord.subarray(0, 5000)],
    ['zeros ending in a newline (power lost after the size grew)', Buffer.concat([Buffer.alloc(60), Buffer.from('\n')])],
    ['whole but for a page of zeros (power lost before that page was written)', Buffer.concat([longRecord.subarray(0, 4096), Buffer.alloc(4096), longRecord.subarray(8192)])],
    ['its start, then zeros to its length', Buffer.concat([longRecord.subarray(0, 100), Buffer.alloc(longRecord.length - 100)])],
  ] as const) {
    it(`takes an invalid last record (${name}) for a torn write, ending the valid records before it`, () => {
      const first = encodeRecord(change(1));
      expect(readRecords(ledgerOf(first, tail), 'ledger.1.jsonl')).to.deep.equal({ records: [change(1)], end: first.length });
    });
  }

  // A crash leaves a prefix of the append, then zeros or nothing: every byte of these was written.
  for (const [name, tail] of [
    ['a byte of its change set changed', Buffer.from(encodeRecord(change(2)).toString().replace('"revision":2', '"revision":3'))],
    ['a bit of its change set flipped', withByte(longRecord, 6000, longRecord[6000]! ^ 0x04)],
    ['a digit of its checksum changed', withByte(encodeRecord(change(2)), 10, encodeRecord(change(2))[10] === 0x30 ? 0x31 : 0x30)],
    ['a digit of its length changed', withByte(longRecord, 37, 0x39)],
    ['its newline changed (as long as its prefix says)', withByte(longRecord, -1, 0x20)],
    ['a complete line that is not JSON', Buffer.from('not json\n')],
  ] as const) {
    it(`refuses a whole last record that does not verify (${name}): STORAGE_ERROR at its position, never cut as a torn write`, () => {
      const first = encodeRecord(change(1));
      const error = failureOf(ledgerOf(first, tail));
      expect([error.code, error.details]).to.deep.equal(['STORAGE_ERROR', { cause: 'EINVALID', path: 'ledger.1.jsonl', offset: 100 + first.length }]);
      expect(() => entriesNaming(ledgerOf(first, tail), 'ledger.1.jsonl', 'T-1')).to.throw(/the ledger record at byte 1\d+, its last, is whole but not as written/);
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

  it('takes a record only with its prefix as written: 8 lowercase hex digits, 10 decimal digits, and the text around them', () => {
    const first = encodeRecord(change(1));
    const record = encodeRecord(change(2)).toString('latin1');
    const crc = record.slice('{"crc32":"'.length, '{"crc32":"'.length + 8);
    const length = record.slice(record.indexOf('"bytes":"') + '"bytes":"'.length, record.indexOf('","change"'));
    for (const changed of [
      record.replace(crc, crc.toUpperCase().replace(/^[0-9]/, 'A')),
      record.replace(crc, `${crc.slice(0, 7)}g`),
      record.replace(`"${length}"`, `" ${length.slice(1)}"`),
      record.replace(`"${length}"`, `"+${length.slice(1)}"`),
      record.replace('"crc32"', '"crc33"'),
      record.replace('"change":', '"change" '),
    ]) {
      // Invalid, with a valid record after it: damage in the middle, at its position.
      const error = failureOf(ledgerOf(first, changed, encodeRecord(change(3))));
      expect([error.code, error.details.offset], changed).to.deep.equal(['STORAGE_ERROR', 100 + first.length]);
    }
    expect(readRecords(ledgerOf(first, record), 'ledger.1.jsonl').records).to.deep.equal([change(1), change(2)]);
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

  describe('checked in one call by the CRC-32 module', () => {
    /** Where the intact record at `at` ends, read as docs/storage.md says, with no code of the reader's: null when there is none. */
    const intactAt = (bytes: Buffer, at: number): number | null => {
      const prefix = /^\{"crc32":"([0-9a-f]{8})","bytes":"([0-9]{10})","change":/.exec(bytes.toString('latin1', at, at + 50));
      if (!prefix) return null;
      const end = at + 50 + Number(prefix[2]);
      if (end + 2 > bytes.length || bytes.toString('latin1', end, end + 2) !== '}\n') return null;
      return zlibCrc32(bytes.subarray(at + 50, end)) === parseInt(prefix[1]!, 16) ? end + 2 : null;
    };
    /** The change sets of the intact records from the start, where they end, and the first intact record after that end, if any (damage). */
    const reference = (bytes: Buffer) => {
      const bodies: string[] = [];
      let at = 0;
      for (let next = intactAt(bytes, 0); at < bytes.length && next !== null; next = intactAt(bytes, at)) {
        bodies.push(bytes.toString('utf8', at + 50, next - 2));
        at = next;
      }
      let nextValid: number | null = null;
      for (let later = at + 1; at < bytes.length && later < bytes.length && nextValid === null; later++) if (intactAt(bytes, later) !== null) nextValid = later;
      // What is left after the last intact record was all written (no zero, and a newline last or the length its prefix says): damage, not a tear.
      const tail = bytes.subarray(at);
      const declared = /^\{"crc32":"[0-9a-f]{8}","bytes":"([0-9]{10})","change":/.exec(tail.toString('latin1', 0, 50));
      const whole = tail.length > 0 && !tail.includes(0) && (tail[tail.length - 1] === 0x0a || (declared !== null && tail.length === 52 + Number(declared[1])));
      return { bodies, end: at, nextValid, whole };
    };
    /** A ledger of a few records of several sizes (notes with characters of 2 to 4 UTF-8 bytes among them), then 0 to 2 changes of its bytes. */
    const damagedLedger = (seed: number) => {
      let state = seed;
      const random = (below: number) => {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return Math.floor((state / 2 ** 31) * below);
      };
      const records = Array.from({ length: 1 + random(12) }, (_, at) => {
        const note = 'note é ✓ 🙂 '.repeat(random(40));
        return encodeRecord({ ...change(at + 1), log: [{ revision: at + 1, at: 'x', by: 'b', op: 'add-note', node: `T-${at}`, note }] });
      });
      let bytes = Buffer.concat(records);
      for (let changes = random(3); changes > 0; changes--) {
        const kind = random(4);
        const at = random(bytes.length);
        if (kind === 0) bytes[at] = random(256);
        else if (kind === 1) bytes = bytes.subarray(0, at);
        else if (kind === 2) bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from('junk\n{"crc32":"'.slice(0, 1 + random(16))), bytes.subarray(at)]);
        else {
          // A byte of a record's prefix or of its closing `}\n`: what the module checks beside the checksum.
          const start = records.slice(0, random(records.length)).reduce((sum, record) => sum + record.length, 0);
          const record = records[records.findIndex((_, index) => records.slice(0, index).reduce((sum, earlier) => sum + earlier.length, 0) === start)] ?? records[0]!;
          const where = random(2) === 0 ? start + random(50) : start + record.length - 1 - random(2);
          if (where < bytes.length) bytes[where] = '0123456789abcdefABCDEF"{}:,\n '.charCodeAt(random(30));
        }
      }
      return bytes;
    };

    it('finds the records a reading of the format by hand finds, on ledgers damaged at random, in the module and in readRecords', () => {
      for (let seed = 1; seed <= 400; seed++) {
        const bytes = damagedLedger(seed);
        const expected = reference(bytes);
        const lengths = wasmChecks()!.recordLengths(bytes);
        expect(lengths, `seed ${seed}`).to.deep.equal(expected.bodies.map((body) => Buffer.byteLength(body)));
        let read: unknown;
        try {
          read = readRecords(bytes, 'ledger.1.jsonl', 100);
        } catch (error) {
          read = (error as { details: Record<string, unknown> }).details;
        }
        if (expected.nextValid !== null) expect(read, `seed ${seed}`).to.deep.include({ cause: 'EINVALID', offset: 100 + expected.end, next_valid_offset: 100 + expected.nextValid });
        else if (expected.whole) expect(read, `seed ${seed}`).to.deep.equal({ cause: 'EINVALID', path: 'ledger.1.jsonl', offset: 100 + expected.end });
        else expect(read, `seed ${seed}`).to.deep.equal({ records: expected.bodies.map((body) => JSON.parse(body)), end: expected.end });
      }
    });

    it('reads a change set of no bytes as intact when its checksum is that of no bytes, and a record cut in its prefix as torn', () => {
      const empty = Buffer.from(`{"crc32":"00000000","bytes":"0000000000","change":}\n`);
      expect(wasmChecks()!.recordLengths(Buffer.concat([empty, encodeRecord(change(1))]))).to.deep.equal([0, encodeRecord(change(1)).length - 52]);
      expect(wasmChecks()!.recordLengths(encodeRecord(change(1)).subarray(0, 49))).to.deep.equal([]);
      // Ten digits past 2^32 wrap to a length that fits in a 32-bit sum: still not intact.
      const wrapped = Buffer.from(`{"crc32":"00000000","bytes":"4294967296","change":}\n`);
      expect(wasmChecks()!.recordLengths(wrapped)).to.deep.equal([]);
    });
  });

  describe('the entries that name a node (history)', () => {
    const entry = (revision: number, node: string | null, note?: string): LogEntry => ({ revision, at: '2026-01-02T03:04:05.678Z', by: 'bob', op: note ? 'add-note' : 'update', node, ...(note ? { note } : {}) });
    const logged = (revision: number, log: LogEntry[]): ChangeSet => ({ ...change(revision), log, nodes: { [`T-${revision}`]: { id: `T-${revision}`, title: 'T-1 in a title' } as never } });
    /** A base record of many entries, then commits: T-1 in some entries' node, in notes, as a prefix of T-10, and in a node of a change set. */
    const ledger = () => {
      const base = Array.from({ length: 300 }, (_, at) => entry(at + 1, `T-${at % 30}`, at % 7 === 0 ? `see T-${(at * 11) % 30}.` : undefined));
      return ledgerOf(encodeRecord(logged(300, base)), encodeRecord(logged(301, [entry(301, 'T-2', 'after T-1')])), encodeRecord(logged(302, [entry(302, 'T-3')])));
    };
    const wholeLog = (bytes: Buffer) => readRecords(bytes, 'ledger.1.jsonl').records.flatMap((record) => record.log);

    it('writes each log entry after a tab, a JSON document jq and earlier builds read the same', () => {
      const record = encodeRecord(logged(2, [entry(1, 'T-1'), entry(2, 'T-2')]));
      expect(record.toString()).to.include('"log":[\t{"revision":1,').and.include('},\t{"revision":2,').and.include('"node":"T-2"}\t],');
      expect(JSON.parse(record.toString()).change).to.deep.equal(logged(2, [entry(1, 'T-1'), entry(2, 'T-2')]));
    });

    it('give every entry about the node, as the whole log does, parsing only the entries that hold its id', () => {
      const bytes = ledger();
      const parse = sinon.spy(JSON, 'parse');
      let found: { entries: LogEntry[]; end: number };
      try {
        found = entriesNaming(bytes, 'ledger.1.jsonl', 'T-1');
      } finally {
        parse.restore();
      }
      expect(found.end).to.equal(bytes.length);
      for (const id of ['T-1', 'T-10', 'T-3', 'T-29', 'T-99']) expect(historyOf(entriesNaming(bytes, 'ledger.1.jsonl', id).entries, id, 1000), id).to.deep.equal(historyOf(wholeLog(bytes), id, 1000));
      // One parse per entry that holds `T-1` (T-1, T-10 to T-19, notes naming them): no record whole, not
      // even the last, whose change set names T-1 in a node's title but none of its entries.
      const holding = wholeLog(bytes).filter((logEntry) => JSON.stringify(logEntry).includes('T-1'));
      expect(parse.callCount).to.equal(holding.length);
      expect(parse.args.reduce((sum, [text]) => sum + String(text).length, 0)).to.equal(holding.reduce((sum, logEntry) => sum + JSON.stringify(logEntry).length, 0));
    });

    it('parse a record whole when its log is not written an entry after a tab (earlier builds), or it holds an escaped ASCII character', () => {
      const plain = (changes: ChangeSet, text = JSON.stringify(changes)) => {
        const body = Buffer.from(text);
        return Buffer.from(`{"crc32":"${crc32(body).toString(16).padStart(8, '0')}","bytes":"${String(body.length).padStart(10, '0')}","change":${body}}\n`);
      };
      const older = logged(1, [entry(1, 'T-1'), entry(2, 'T-2', 'for T-1')]);
      const escaped = logged(3, [entry(3, 'T-4', 'names T-1 escaped')]);
      const bytes = ledgerOf(plain(older), plain(escaped, JSON.stringify(escaped).replace('names T-1', 'names \\u0054-1')), encodeRecord(logged(4, [entry(4, 'T-1')])));
      expect(historyOf(entriesNaming(bytes, 'ledger.1.jsonl', 'T-1').entries, 'T-1', 100).entries.map((found) => found.revision)).to.deep.equal([1, 2, 3, 4]);
    });

    it('read a record whose notes hold control characters (escaped by JSON.stringify) entry by entry, not whole', () => {
      const base = Array.from({ length: 200 }, (_, at) => entry(at + 1, `T-${at % 20}`, at % 5 === 0 ? `bell \u0007 and escape \u001b for T-${at % 3}` : undefined));
      const bytes = encodeRecord(logged(200, base));
      expect(bytes.toString()).to.include('\\u0007');
      const parse = sinon.spy(JSON, 'parse');
      let found: LogEntry[];
      try {
        found = entriesNaming(bytes, 'ledger.1.jsonl', 'T-1').entries;
      } finally {
        parse.restore();
      }
      expect(historyOf(found, 'T-1', 1000)).to.deep.equal(historyOf(base, 'T-1', 1000));
      expect(parse.args.every(([text]) => String(text).length < 200)).to.equal(true);
    });

    it('check every record as readRecords does: a torn end is left, damage in the middle is STORAGE_ERROR with both positions', () => {
      const bytes = ledger();
      const torn = ledgerOf(bytes, encodeRecord(logged(303, [entry(303, 'T-1')])).subarray(0, 40));
      expect(entriesNaming(torn, 'ledger.1.jsonl', 'T-1').end).to.equal(bytes.length);
      // A byte of the base record changed where no entry holds T-1: unparsed, still checked.
      const damaged = Buffer.from(bytes);
      damaged[damaged.indexOf('"node":"T-2"') + 9] = 0x33;
      const error = (() => {
        try {
          entriesNaming(damaged, 'ledger.1.jsonl', 'T-1');
        } catch (caught) {
          return caught as { code: string; details: Record<string, unknown> };
        }
        throw new Error('expected a failure');
      })();
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.include({ offset: 0, next_valid_offset: bytes.indexOf('{"crc32"', 1) });
    });
  });
});
