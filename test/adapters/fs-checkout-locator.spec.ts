import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CHECKOUT_FILE, FsCheckoutLocator } from '../../adapters/fs-checkout-locator.js';
import { thrownBy } from '../support/graphs.js';
import { useTempDir } from '../support/temp-dir.js';

describe('FsCheckoutLocator', () => {
  const tempDir = useTempDir();
  const dir = (...parts: string[]) => {
    const full = path.join(tempDir(), ...parts);
    mkdirSync(full, { recursive: true });
    return full;
  };
  const writeCheckout = (at: string, content: unknown) =>
    writeFileSync(path.join(at, CHECKOUT_FILE), typeof content === 'string' ? content : JSON.stringify(content));

  it('finds .taskdag.json in the working directory or the nearest parent that has one', () => {
    writeCheckout(dir('repo'), { project_id: 'repo-1' });
    writeCheckout(dir('repo', 'nested'), { project_id: 'nested-1' });
    expect(new FsCheckoutLocator(dir('repo', 'src', 'deep'), undefined).find()).to.deep.equal({
      root: path.join(tempDir(), 'repo'),
      project_id: 'repo-1',
      backend: null,
      retired: null,
    });
    expect(new FsCheckoutLocator(dir('repo', 'nested', 'x'), undefined).find()!.project_id).to.equal('nested-1');
  });

  it('finds nothing when no directory up to the root has one', () => {
    expect(new FsCheckoutLocator(dir('empty', 'a'), undefined).find()).to.equal(null);
  });

  it('with --project, looks only in that directory (resolved from the working directory)', () => {
    writeCheckout(dir('repo'), { project_id: 'repo-1' });
    dir('repo', 'sub');
    expect(new FsCheckoutLocator(dir('elsewhere'), '../repo').find()!.project_id).to.equal('repo-1');
    expect(new FsCheckoutLocator(tempDir(), 'repo/sub').find()).to.equal(null);
    expect(new FsCheckoutLocator(tempDir(), 'repo/sub').root()).to.equal(path.join(tempDir(), 'repo', 'sub'));
  });

  it('reads a linked backend', () => {
    writeCheckout(dir('repo'), { project_id: 'repo-1', backend: { type: 'http', url: 'https://example.test/' } });
    expect(new FsCheckoutLocator(dir('repo'), undefined).find()!.backend).to.deep.equal({ type: 'http', url: 'https://example.test/' });
  });

  it('creates .taskdag.json holding only the project id, in the selected root', () => {
    const sut = new FsCheckoutLocator(tempDir(), 'new-project');
    expect(sut.create('new-1')).to.deep.equal({ root: path.join(tempDir(), 'new-project'), project_id: 'new-1', backend: null, retired: null });
    expect(JSON.parse(readFileSync(path.join(tempDir(), 'new-project', CHECKOUT_FILE), 'utf8'))).to.deep.equal({ project_id: 'new-1' });
  });

  it('reports a retired protocol marker, in backend or at the top level', () => {
    writeCheckout(dir('a'), { project_id: 'a-1', backend: { type: 'http', url: 'http://127.0.0.1:1', protocol_version: 0 } });
    writeCheckout(dir('b'), { project_id: 'b-1', protocol_version: '0' });
    expect(new FsCheckoutLocator(dir('a'), undefined).find()!.retired).to.deep.equal({ field: 'backend.protocol_version', value: 0 });
    expect(new FsCheckoutLocator(dir('b'), undefined).find()!.retired).to.deep.equal({ field: 'protocol_version', value: '0' });
  });

  it('save rewrites the backend and project id, drops the retired marker and keeps every other field', () => {
    writeCheckout(dir('repo'), { project_id: 'repo-1', protocol_version: 0, backend: { type: 'http', url: 'http://old', protocol_version: 0 }, team: 'x' });
    const sut = new FsCheckoutLocator(dir('repo'), undefined);
    sut.save(path.join(tempDir(), 'repo'), 'repo-1', { type: 'http', url: 'https://new.test' });
    expect(JSON.parse(readFileSync(path.join(tempDir(), 'repo', CHECKOUT_FILE), 'utf8'))).to.deep.equal({
      project_id: 'repo-1',
      backend: { type: 'http', url: 'https://new.test' },
      team: 'x',
    });
    sut.save(path.join(tempDir(), 'repo'), 'repo-1', null);
    expect(sut.find()).to.deep.equal({ root: path.join(tempDir(), 'repo'), project_id: 'repo-1', backend: null, retired: null });
  });

  describe('an invalid .taskdag.json is STORAGE_ERROR naming the file', () => {
    const cases: Array<[string, unknown]> = [
      ['not JSON', '{ project_id'],
      ['not an object', '["repo-1"]'],
      ['no project_id', {}],
      ['a project_id that is not an id', { project_id: '../escape' }],
      ['a backend without a url', { project_id: 'repo-1', backend: { type: 'http' } }],
    ];
    for (const [name, content] of cases) {
      it(name, () => {
        writeCheckout(dir('repo'), content);
        const error = thrownBy(() => new FsCheckoutLocator(dir('repo', 'sub'), undefined).find());
        expect(error.code).to.equal('STORAGE_ERROR');
        expect(error.details).to.include({ cause: 'EINVALID', path: path.join(tempDir(), 'repo', CHECKOUT_FILE) });
      });
    }
  });
});
