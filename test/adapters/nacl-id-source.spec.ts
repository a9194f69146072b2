import { expect } from 'chai';
import { NaclIdSource } from '../../adapters/nacl-id-source.js';

describe('NaclIdSource', () => {
  const sut = new NaclIdSource();

  it('draws node suffixes of 8 lowercase hex characters, different each time', () => {
    const suffixes = Array.from({ length: 50 }, () => sut.nodeSuffix());
    for (const suffix of suffixes) expect(suffix).to.match(/^[0-9a-f]{8}$/);
    expect(new Set(suffixes).size).to.equal(50);
  });

  it('names a project after its checkout directory, with a random tail', () => {
    expect(sut.projectId('/home/me/My Repo!')).to.match(/^my-repo-[0-9a-f]{8}$/);
    expect(sut.projectId('/')).to.match(/^project-[0-9a-f]{8}$/);
  });
});
