import { expect } from 'chai';
import { piecesSource } from '../../adapters/pieces-source.js';
import { seededRandom } from '../support/crash-file-system.js';

describe('piecesSource', () => {
  const pieces = [Buffer.from('abc'), Buffer.from('defgh'), Buffer.from('i'), Buffer.from('jklmnop')];
  const whole = Buffer.concat(pieces);
  const sut = piecesSource(pieces);

  it('reads every range as the joined bytes would, within one piece or across several', () => {
    expect(sut.size).to.equal(whole.length);
    for (let start = 0; start <= whole.length; start++) {
      for (let end = start; end <= whole.length + 2; end++) expect(sut.bytes(start, end).toString(), `${start}-${end}`).to.equal(whole.subarray(start, end).toString());
    }
  });

  it('a range within one piece is a view of it, not a copy', () => {
    const view = sut.bytes(4, 7);
    expect(view.toString()).to.equal('efg');
    expect(view.buffer).to.equal(pieces[1]!.buffer);
    expect(view.byteOffset).to.equal(pieces[1]!.byteOffset + 1);
  });

  it('reads random ranges of many pieces of random sizes as the joined bytes would', () => {
    const random = seededRandom(25);
    const many = Array.from({ length: 200 }, (_, index) => Buffer.from(String(index).repeat(1 + Math.floor(random() * 40))));
    const joined = Buffer.concat(many);
    const source = piecesSource(many);
    for (let trial = 0; trial < 2_000; trial++) {
      const start = Math.floor(random() * joined.length);
      const end = start + Math.floor(random() * 300);
      expect(source.bytes(start, end).equals(joined.subarray(start, end))).to.equal(true);
    }
  });
});
