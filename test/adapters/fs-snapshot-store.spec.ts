import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsSnapshotStore } from '../../adapters/fs-snapshot-store.js';
import { encodeRecord } from '../../adapters/ledger-records.js';
import { DomainError } from '../../domain/errors.js';
import { projectState } from '../../domain/projection.js';
import { rejectionOf } from '../support/failures.js';
import { AT, sampleState } from '../support/states.js';

const failure = (work: () => Promise<unknown>) => rejectionOf<DomainError>(work);

describe('FsSnapshotStore', () => {
  let dir: string;
  let sut: FsSnapshotStore;
  const valid = () => ({ kind: 'valid' as const, state: sampleState() });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-snapshots-'));
    sut = new FsSnapshotStore(dir, 'tasks.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes a pair holding the state projection, and loads it back checked', async () => {
    const metadata = await sut.take('force-init', valid(), AT);
    const bytes = readFileSync(path.join(dir, 'snapshots', `${metadata.id}.state.json`));
    expect(bytes.toString()).to.equal(JSON.stringify(projectState(sampleState())) + '\n');
    expect(metadata).to.include({ id: '20260102T030405678Z-force-init', created_at: AT, reason: 'force-init', bytes: bytes.length });
    expect(await sut.load(metadata.id)).to.deep.equal({ metadata, state: projectState(sampleState()), plugins: {} });
    expect(metadata).not.to.have.property('plugins');
  });

  it('keeps a plugin table beside the state, covered by the metadata, and refuses one that does not match it', async () => {
    const plugins = { guard: { name: 'guard', module: '/plugins/guard.js', api_version: 1, installed_at: AT, installed_by: 'alice', data: { limit: 2 } } };
    const metadata = await sut.take('force-init', { ...valid(), plugins }, AT);
    const file = path.join(dir, 'snapshots', `${metadata.id}.plugins.json`);
    expect(metadata.plugins).to.deep.equal({ bytes: readFileSync(file).length, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') });
    expect((await sut.load(metadata.id)).plugins).to.deep.equal(plugins);
    expect((await sut.list())[0]!.plugins).to.deep.equal(metadata.plugins);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"limit":2', '"limit":3'));
    const error = await rejectionOf<DomainError>(() => sut.load(metadata.id));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details).to.include({ cause: 'EINVALID', path: file });
  });

  it('gives ids that sort by creation even when the clock does not move', async () => {
    const ids = [await sut.take('force-init', valid(), AT), await sut.take('pre-restore', valid(), AT), await sut.take('force-init', valid(), AT)].map((m) => m.id);
    expect(ids).to.deep.equal(['20260102T030405678Z-force-init', '20260102T030405679Z-pre-restore', '20260102T030405680Z-force-init']);
    expect((await sut.list()).map((m) => m.id)).to.deep.equal([...ids].reverse());
  });

  it('lists nothing when there are no snapshots, and skips incomplete or mismatched pairs', async () => {
    expect(await sut.list()).to.deep.equal([]);
    const kept = await sut.take('force-init', valid(), AT);
    const orphan = await sut.take('force-init', valid(), AT);
    const renamed = await sut.take('force-init', valid(), AT);
    rmSync(path.join(dir, 'snapshots', `${orphan.id}.meta.json`));
    writeFileSync(path.join(dir, 'snapshots', `${renamed.id}.meta.json`), JSON.stringify({ ...renamed, id: kept.id }));
    expect(await sut.list()).to.deep.equal([kept]);
  });

  it('keeps the raw files of an unreadable state: the checkpoint as the state, each ledger beside it', async () => {
    writeFileSync(path.join(dir, 'tasks.json'), 'not json');
    writeFileSync(path.join(dir, 'ledger.3.jsonl'), '{"revision":1}\n');
    const error = new DomainError('STORAGE_ERROR', 'unreadable', { cause: 'EINVALID' });
    const metadata = await sut.take('corrupt-recovery', { kind: 'unreadable', text: 'not json', error, reached: { revision: 0, fence_generation: 0 } }, AT);
    expect(readdirSync(path.join(dir, 'snapshots')).sort()).to.deep.equal([
      `${metadata.id}.ledger.3.jsonl`,
      `${metadata.id}.meta.json`,
      `${metadata.id}.state.json`,
    ]);
    expect(metadata.bytes).to.equal(8);
    expect((await failure(() => sut.load(metadata.id))).details.cause).to.equal('EINVALID');
  });

  describe('a snapshot of raw files whose ledger starts at the state\'s creation', () => {
    const error = new DomainError('STORAGE_ERROR', 'unreadable', { cause: 'EINVALID' });
    const unreadable = { kind: 'unreadable' as const, text: '', error, reached: { revision: 0, fence_generation: 0 } };
    const initiative = { desc: 'Core', created_at: AT };
    let metadata: Awaited<ReturnType<FsSnapshotStore['take']>>;

    beforeEach(async () => {
      const created = { revision: 0, log: [], nodes: {}, notes: [], edges: [], initiatives: {}, fence_generation: 4, starts_empty: true as const };
      const entry = { revision: 1, at: AT, by: 'alice', op: 'add-initiative', node: null, initiative: 'core' };
      writeFileSync(path.join(dir, 'ledger.2.jsonl'), Buffer.concat([encodeRecord(created), encodeRecord({ revision: 1, log: [entry], nodes: {}, notes: [], edges: [], initiatives: { core: initiative } })]));
      metadata = await sut.take('corrupt-recovery', unreadable, AT);
    });

    it('loads as that ledger replayed, with the generation\'s fence', async () => {
      const { state } = await sut.load(metadata.id);
      expect(state).to.include({ revision: 1, fence_generation: 4 });
      expect(state.initiatives).to.deep.equal({ core: initiative });
      expect(state.log.map((entry) => entry.op)).to.deep.equal(['add-initiative']);
    });

    it('refuses a ledger copy that does not match its digest, and a raw file named outside the snapshot', async () => {
      const copy = path.join(dir, 'snapshots', `${metadata.id}.ledger.2.jsonl`);
      writeFileSync(copy, readFileSync(copy, 'utf8').replace('core', 'cora'));
      expect((await failure(() => sut.load(metadata.id))).message).to.contain('sha256');
      const meta = path.join(dir, 'snapshots', `${metadata.id}.meta.json`);
      const outside = { ...metadata, raw_files: [{ ...metadata.raw_files![0]!, name: `${metadata.id}.ledger.2.jsonl/../../ledger.2.jsonl` }] };
      writeFileSync(meta, JSON.stringify(outside));
      expect((await failure(() => sut.load(metadata.id))).message).to.contain('keeps no ledger');
    });
  });

  it('refuses ids that are not snapshot ids before touching the disk', async () => {
    for (const id of ['../tasks', '', '20260102T030405678Z-force-init/../x', 'latest']) {
      expect((await failure(() => sut.load(id))).code, id).to.equal('INVALID_ARGUMENT');
    }
  });

  it('refuses a missing snapshot and a wrong digest', async () => {
    expect((await failure(() => sut.load('20000101T000000000Z-force-init'))).details.cause).to.equal('ENOENT');
    const metadata = await sut.take('force-init', valid(), AT);
    const file = path.join(dir, 'snapshots', `${metadata.id}.state.json`);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"G-1"', '"G-2"'));
    expect((await failure(() => sut.load(metadata.id))).message).to.contain('sha256');
  });
});
