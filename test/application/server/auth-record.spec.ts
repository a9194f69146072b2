import { expect } from 'chai';
import { parseAuthRecord, renderAuthRecord, type AuthRecord } from '../../../application/server/auth-record.js';

const SALT = Buffer.alloc(16, 1).toString('base64url');
const HASH = Buffer.alloc(64, 2).toString('base64url');
const valid: AuthRecord = {
  version: 1,
  verifier: { kdf: 'scrypt', n: 2 ** 15, r: 8, p: 1, salt: SALT, hash: HASH },
  sessions: [{ bearer_hash: 'ab'.repeat(64), created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-31T00:00:00.000Z' }],
};
const problemOf = (edit: (record: any) => void) => {
  const record = structuredClone(valid) as any;
  edit(record);
  const parsed = parseAuthRecord(JSON.stringify(record));
  return 'problem' in parsed ? parsed.problem : null;
};

describe('the auth record (remote-auth.json)', () => {
  it('reads back what it renders', () => {
    expect(parseAuthRecord(renderAuthRecord(valid))).to.deep.equal({ record: valid });
  });

  it('a file cut short at any byte is corrupt, never half-trusted', () => {
    const text = renderAuthRecord(valid);
    for (let length = 0; length < text.trimEnd().length; length++) expect(parseAuthRecord(text.slice(0, length)), `cut at ${length}`).to.have.property('problem');
  });

  it('refuses a scrypt cost that would throw or run away, and a salt or hash of the wrong size', () => {
    const refused: [string, (record: any) => void][] = [
      ['N not a power of two', (record) => (record.verifier.n = 3)],
      ['N of 1', (record) => (record.verifier.n = 1)],
      ['N past 2^20', (record) => (record.verifier.n = 2 ** 21)],
      ['r past 32', (record) => (record.verifier.r = 33)],
      ['p past 16', (record) => (record.verifier.p = 17)],
      ['more than 256 MiB', (record) => Object.assign(record.verifier, { n: 2 ** 20, r: 4 })],
      ['a fractional cost', (record) => (record.verifier.r = 1.5)],
      ['a short salt', (record) => (record.verifier.salt = SALT.slice(0, 20))],
      ['a salt that is not base64url', (record) => (record.verifier.salt = `${SALT}==`)],
      ['a hash cut short', (record) => (record.verifier.hash = HASH.slice(0, 85))],
      ['a hash too long', (record) => (record.verifier.hash = `${HASH}AAAA`)],
    ];
    for (const [name, edit] of refused) expect(problemOf(edit), name).to.be.a('string');
    expect(problemOf((record) => Object.assign(record.verifier, { n: 2 ** 20, r: 2, p: 16 })), 'the bounds themselves').to.equal(null);
    expect(problemOf((record) => (record.verifier.n = 2)), 'the cheapest cost a test uses').to.equal(null);
  });
});
