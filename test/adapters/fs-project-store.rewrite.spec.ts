import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsProjectStore, FsProjectStoreFactory } from '../../adapters/fs-project-store.js';
import { DomainError } from '../../domain/errors.js';
import { projectState } from '../../domain/projection.js';
import { sampleState } from '../support/states.js';

describe('FsProjectStore whole-state rewrites (init, restore, migrate)', () => {
  let home: string;
  let sut: FsProjectStore;

  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'taskdag-store-'));
    sut = new FsProjectStoreFactory(home).open('p');
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('sees an absent state, then the state it wrote, in full with its log', () => {
    expect(sut.rewrite((current) => ({ result: current.kind, state: sampleState() }))).to.equal('absent');
    const seen = sut.rewrite((current) => ({ result: current, state: null }));
    expect(seen.kind === 'valid' && projectState(seen.state)).to.deep.equal(projectState(sampleState()));
    sut.readState((state) => expect(projectState(state)).to.deep.equal(projectState(sampleState())));
  });

  it('hands over an unreadable state with its text and why it does not load', () => {
    mkdirSync(sut.location, { recursive: true });
    writeFileSync(path.join(sut.location, 'tasks.json'), '{"version": 1');
    const seen = sut.inspect();
    expect(seen.kind).to.equal('unreadable');
    if (seen.kind !== 'unreadable') return;
    expect(seen.text).to.equal('{"version": 1');
    expect(seen.error.details.cause).to.equal('EINVALID');
  });

  it('refuses to write a state that would not load, and writes nothing', () => {
    sut.replace(sampleState());
    const before = readdirSync(sut.location).sort();
    const broken = { ...sampleState(), edges: [{ from: 'T-1', to: 'T-404', type: 'BLOCKS' as const }] };
    let error: DomainError | null = null;
    try {
      sut.rewrite(() => ({ result: null, state: broken }));
    } catch (caught) {
      error = caught as DomainError;
    }
    expect(error?.details.cause).to.equal('EINVALID');
    expect(readdirSync(sut.location).sort()).to.deep.equal(before);
  });

  it('writes each whole state to a new ledger generation and removes the old one', () => {
    sut.replace(sampleState());
    sut.replace(sampleState());
    expect(readdirSync(sut.location).filter((name) => name.startsWith('ledger.'))).to.deep.equal(['ledger.2.jsonl']);
  });

  it('inspects without creating anything, not even a lock file', () => {
    expect(sut.inspect()).to.deep.equal({ kind: 'absent' });
    expect(existsSync(sut.location)).to.equal(false);
  });

  it('lists the projects of the storage root', () => {
    expect(new FsProjectStoreFactory(home).list()).to.deep.equal([]);
    sut.replace(sampleState());
    new FsProjectStoreFactory(home).open('a').replace(sampleState());
    expect(new FsProjectStoreFactory(home).list()).to.deep.equal(['a', 'p']);
  });
});
