import { expect } from 'chai';
import { crc32 } from '../../adapters/crc32.js';
import { blocksBetween, checkedIndex, encodeHistoryIndex, entriesThroughIndex, indexBlocks, ledgerIdentity } from '../../adapters/history-index.js';
import { encodeRecord, readRecords } from '../../adapters/ledger-records.js';
import type { ChangeSet } from '../../domain/change-set.js';
import { historyOf } from '../../domain/history.js';
import type { LogEntry } from '../../domain/model.js';
import { seededRandom } from '../support/crash-file-system.js';

const FILE = 'ledger.1.jsonl';
const change = (revision: number, log: LogEntry[]): ChangeSet => ({ revision, log, nodes: {}, notes: [], edges: [], initiatives: {} });
const entry = (revision: number, node: string, note?: string): LogEntry => ({ revision, at: '2026-01-02T03:04:05.678Z', by: 'bob', op: note ? 'add-note' : 'update', node, ...(note === undefined ? {} : { note }) });

/** A record of a change set's JSON as given (as a hand edit writes it, its checksum made right). */
function recordOf(body: string): Buffer {
  const bytes = Buffer.from(body);
  return Buffer.from(`{"crc32":"${crc32(bytes).toString(16).padStart(8, '0')}","bytes":"${String(bytes.length).padStart(10, '0')}","change":${body}}\n`);
}

/**
 * A ledger as a whole-state write and then commits leave it: a first record holding `base` entries
 * (T-0 to T-199 in turn, a note naming another node every seventh), then `commits` records of one
 * entry each.
 */
function ledgerOf(base: number, commits: number, extra: Buffer[] = []): Buffer {
  const log = Array.from({ length: base }, (_, at) => entry(at + 1, `T-${at % 200}`, at % 7 === 0 ? `see T-${(at * 3) % 260}. (and T-${at % 3}:)` : undefined));
  const records = [encodeRecord(change(base, log))];
  for (let at = 0; at < commits; at++) records.push(encodeRecord(change(base + at + 1, [entry(base + at + 1, `T-${(at * 7) % 230}`, at % 5 === 0 ? `line\nT-${at % 11}\tdone` : undefined)])));
  return Buffer.concat([...records, ...extra]);
}

function indexOf(ledger: Buffer): Buffer {
  const identity = ledgerIdentity(ledger)!;
  const { blocks, covered } = indexBlocks(ledger, 0, identity);
  return encodeHistoryIndex(identity, covered, blocks);
}

/** Reads of a buffer, counted. */
function counted(bytes: Buffer): { read: (start: number, end: number) => Buffer; total: () => number } {
  let total = 0;
  return {
    read: (start, end) => {
      total += Math.max(0, Math.min(end, bytes.length) - start);
      return bytes.subarray(start, end);
    },
    total: () => total,
  };
}

/** `id`'s history through `index`, as `history` lists it (null: the index cannot answer). */
function historyThrough(index: Buffer, ledger: Buffer, id: string, ledgerEnd = ledger.length) {
  const entries = entriesThroughIndex((start, end) => index.subarray(start, end), index.length, (start, end) => ledger.subarray(start, end), ledgerEnd, FILE, id);
  return entries && historyOf(entries, id, Number.MAX_SAFE_INTEGER);
}

function wholeHistory(ledger: Buffer, id: string) {
  return historyOf(readRecords(ledger, FILE).records.flatMap((record) => record.log), id, Number.MAX_SAFE_INTEGER);
}

describe('history index', () => {
  const ledger = ledgerOf(3_000, 400);
  const index = indexOf(ledger);
  const ids = ['T-1', 'T-12', 'T-120', 'T-7', 'T-250', 'T-259', 'T-0', 'T-2', 'T-10', 'T-404', 'T-1.', 'T-12:'];

  it('answers every id as the whole ledger does: its own entries, whole tokens of notes (T-1 not in T-12), ids only in notes, notes with escapes', () => {
    for (const id of ids) expect(historyThrough(index, ledger, id), id).to.deep.equal(wholeHistory(ledger, id));
    // T-250 to T-259 are named in notes only; T-7 also after an escaped newline.
    expect(wholeHistory(ledger, 'T-250').entries).to.have.length.above(0);
    expect(wholeHistory(ledger, 'T-7').entries.some((found) => found.note?.startsWith('line\n'))).to.equal(true);
  });

  it('reads a few blocks of the ledger, not all of it, for one node', () => {
    for (const id of ['T-404', 'T-255']) {
      const [indexReads, ledgerReads] = [counted(index), counted(ledger)];
      const entries = entriesThroughIndex(indexReads.read, index.length, ledgerReads.read, ledger.length, FILE, id);
      expect(entries, id).to.not.equal(null);
      expect(ledgerReads.total(), id).to.be.below(ledger.length / 3);
      expect(indexReads.total(), id).to.be.below(index.length / 8);
    }
  });

  it('splits a record whose log is longer than a block into runs of its entries, and groups small records', () => {
    const { blocks, covered } = indexBlocks(ledger, 0, ledgerIdentity(ledger)!);
    expect(covered).to.equal(ledger.length);
    expect(blocks.filter((block) => block.kind === 'entries').length).to.be.above(5);
    expect(blocks.filter((block) => block.kind === 'records').length).to.be.above(0);
    for (const block of blocks.filter((found) => found.kind === 'entries')) {
      expect(ledger[block.start - 1]).to.equal(0x09);
      expect(ledger[block.end]).to.equal(0x09);
    }
  });

  it('lets every id through a block holding a character escaped as a hand edit could write it, or a key spaced otherwise', () => {
    const handEdits = [
      recordOf('{"revision":3401,"log":[\t{"revision":3401,"node":"T-3","note":"see \\u0054-999"}\t],"nodes":{},"notes":[],"edges":[],"initiatives":{}}'),
      recordOf('{"revision":3402,"log":[\t{"revision":3402, "node" : "T-998"}\t],"nodes":{},"notes":[],"edges":[],"initiatives":{}}'),
    ];
    const edited = ledgerOf(3_000, 400, handEdits);
    const editedIndex = indexOf(edited);
    for (const id of ['T-999', 'T-998', 'T-3']) expect(historyThrough(editedIndex, edited, id), id).to.deep.equal(wholeHistory(edited, id));
    expect(wholeHistory(edited, 'T-999').entries).to.have.length(1);
    expect(wholeHistory(edited, 'T-998').entries).to.have.length(1);
  });

  it('reads the records after its end as the tail, and extends from where it ends to the same answers', () => {
    const older = ledger.subarray(0, readRecords(ledger, FILE).end - 50 * encodeRecord(change(1, [entry(1, 'T-1')])).length);
    const start = readRecords(older, FILE).end;
    const identity = ledgerIdentity(ledger)!;
    const first = indexBlocks(ledger.subarray(0, start), 0, identity);
    const shorter = encodeHistoryIndex(identity, first.covered, first.blocks);
    for (const id of ids) expect(historyThrough(shorter, ledger, id), id).to.deep.equal(wholeHistory(ledger, id));
    const previous = checkedIndex(shorter)!;
    const more = indexBlocks(ledger.subarray(previous.covered), previous.covered, identity, previous.count);
    const extended = encodeHistoryIndex(identity, more.covered, more.blocks, previous);
    expect(checkedIndex(extended)!.count).to.equal(previous.count + more.blocks.length);
    for (const id of ids) expect(historyThrough(extended, ledger, id), id).to.deep.equal(wholeHistory(ledger, id));
  });

  it('is built a slice at a time for a server, inside one long record too, to the same blocks', () => {
    // A whole-state write's record of 2.4 MB, then 400 small records.
    const long = ledgerOf(24_000, 400);
    const identity = ledgerIdentity(long)!;
    const steps = blocksBetween((start, end) => long.subarray(start, end), 0, long.length, identity, 0);
    let turns = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) turns++;
    expect(turns).to.be.at.least(3);
    const whole = indexBlocks(long, 0, identity);
    expect(step.value.covered).to.equal(whole.covered);
    expect(encodeHistoryIndex(identity, step.value.covered, step.value.blocks)).to.deep.equal(encodeHistoryIndex(identity, whole.covered, whole.blocks));
  });

  it('is not read beside another ledger, nor beside a ledger shorter than it covers', () => {
    const other = ledgerOf(2_999, 400);
    expect(historyThrough(index, other, 'T-1')).to.equal(null);
    const end = readRecords(ledger.subarray(0, ledger.length - 100), FILE).end;
    expect(historyThrough(index, ledger, 'T-1', end)).to.equal(null);
  });

  it('refuses an index whose bytes a query uses are damaged, answers as the whole ledger whatever other byte is, and refuses one cut anywhere', () => {
    const small = ledgerOf(600, 30);
    const smallIndex = indexOf(small);
    for (const id of ['T-1', 'T-12', 'T-255', 'T-404']) {
      const truth = wholeHistory(small, id);
      const used = new Set<number>();
      entriesThroughIndex((start, end) => {
        for (let at = start; at < Math.min(end, smallIndex.length); at++) used.add(at);
        return smallIndex.subarray(start, end);
      }, smallIndex.length, (start, end) => small.subarray(start, end), small.length, FILE, id);
      expect(used.size, id).to.be.above(40);
      const random = seededRandom(id.length);
      const others = Array.from({ length: 300 }, () => Math.floor(random() * smallIndex.length)).filter((at) => !used.has(at));
      for (const at of [...used, ...others]) {
        for (const flip of [0x01, 0x80, 0xff]) {
          const damaged = Buffer.from(smallIndex);
          damaged[at] ^= flip;
          const answer = historyThrough(damaged, small, id);
          if (used.has(at)) expect(answer, `${id}, byte ${at} used`).to.equal(null);
          else if (answer !== null) expect(answer, `${id}, byte ${at}`).to.deep.equal(truth);
        }
      }
    }
    const random = seededRandom(7);
    for (let cut = 0; cut < 200; cut++) {
      const length = Math.floor(random() * smallIndex.length);
      expect(historyThrough(smallIndex.subarray(0, length), small, 'T-1'), `cut at ${length}`).to.equal(null);
    }
  });

  it('is extended only from a file whose header and every row check: damage a query never reads is not carried into the next file', () => {
    const small = ledgerOf(600, 30);
    const smallIndex = indexOf(small);
    expect(checkedIndex(smallIndex)).to.not.equal(null);
    const tableStart = smallIndex.length - 17 * checkedIndex(smallIndex)!.count;
    const random = seededRandom(11);
    for (let sample = 0; sample < 2_000; sample++) {
      const at = Math.floor(random() * tableStart);
      const damaged = Buffer.from(smallIndex);
      damaged[at] ^= 1 << sample % 8;
      expect(checkedIndex(damaged), `byte ${at}`).to.equal(null);
    }
    expect(checkedIndex(smallIndex.subarray(0, smallIndex.length - 1))).to.equal(null);
  });

  it('refuses a block whose ledger bytes changed since it was built', () => {
    const { blocks } = indexBlocks(ledger, 0, ledgerIdentity(ledger)!);
    const holding = blocks.find((block) => block.kind === 'entries' && ledger.subarray(block.start, block.end).includes('"node":"T-12"'))!;
    const damaged = Buffer.from(ledger);
    const at = damaged.indexOf('"node":"T-12"', holding.start) + 9;
    damaged[at] = 0x33;
    expect(historyThrough(index, damaged, 'T-12')).to.equal(null);
  });
});
