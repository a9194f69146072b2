import { expect } from 'chai';
import { ScryptPasswordHasher } from '../../../adapters/server/scrypt-password-hasher.js';
import { TweetnaclBearerTokens } from '../../../adapters/server/tweetnacl-bearer-tokens.js';

describe('credentials (scrypt verifier, tweetnacl bearers)', () => {
  it('the verifier matches its password only, with a fresh salt each time and its cost kept', async () => {
    const sut = new ScryptPasswordHasher({ n: 1024, r: 8, p: 1 });
    const verifier = await sut.derive('correct horse');
    expect(verifier).to.include({ kdf: 'scrypt', n: 1024, r: 8, p: 1 });
    expect(Buffer.from(verifier.hash, 'base64url')).to.have.length(64);
    expect(await sut.matches('correct horse', verifier)).to.equal(true);
    expect(await sut.matches('correct horsf', verifier)).to.equal(false);
    expect((await sut.derive('correct horse')).salt).not.to.equal(verifier.salt);
    // A verifier made with other costs still verifies: they travel with it.
    expect(await new ScryptPasswordHasher().matches('correct horse', verifier)).to.equal(true);
  });

  it('bearers are 32 random bytes, hashed the same way when presented; anything else has no hash', () => {
    const sut = new TweetnaclBearerTokens();
    const { bearer, hash } = sut.mint();
    expect(Buffer.from(bearer, 'base64url')).to.have.length(32);
    expect(hash).to.match(/^[0-9a-f]{128}$/);
    expect(sut.hashOf(bearer)).to.equal(hash);
    expect(sut.mint().bearer).not.to.equal(bearer);
    for (const other of ['', 'short', `${bearer}x`, bearer.replace(/./, '+')]) expect(sut.hashOf(other), other).to.equal(null);
  });
});
