import { expect } from 'chai';
import fs from 'node:fs';
import sinon from 'sinon';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';

describe('KernelRandomIdSource', () => {
  const sut = new KernelRandomIdSource();

  it('makes node suffixes of 8 lowercase hex characters that differ', () => {
    const suffixes = new Set(Array.from({ length: 50 }, () => sut.nodeSuffix()));
    for (const suffix of suffixes) expect(suffix).to.match(/^[0-9a-f]{8}$/);
    expect(suffixes.size).to.equal(50);
  });

  it('names a project after its checkout directory', () => {
    expect(sut.projectId('/home/alice/My Billing App')).to.match(/^my-billing-app-[0-9a-f]{8}$/);
    expect(sut.projectId('/')).to.match(/^project-[0-9a-f]{8}$/);
  });

  it('still makes ids where /dev/urandom cannot be opened', () => {
    const open = sinon.stub(fs, 'openSync').throws(Object.assign(new Error('no such device'), { code: 'ENOENT' }));
    expect(sut.nodeSuffix()).to.match(/^[0-9a-f]{8}$/);
    expect(open.calledWith('/dev/urandom')).to.equal(true);
  });
});
