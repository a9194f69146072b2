import { expect } from 'chai';
import { hostPortOf, isLoopback, normalizeOrigin } from '../../../application/remote/origin.js';
import { insecureHttpWarnings } from '../../../application/remote/warnings.js';
import { thrownBy } from '../../support/graphs.js';

describe('server origins and the insecure-remote-http warning (spec 4.1, 4.5)', () => {
  it('normalises one server to one origin', () => {
    expect(normalizeOrigin('HTTP://Example.TEST:80/')).to.equal('http://example.test');
    expect(normalizeOrigin('https://example.test:8443/taskdag/')).to.equal('https://example.test:8443/taskdag');
    expect(normalizeOrigin('http://127.0.0.1:8080')).to.equal('http://127.0.0.1:8080');
  });

  it('refuses what is not an http(s) origin, credentials in the URL included', () => {
    for (const text of ['example.test', 'ftp://example.test', 'http://user:secret@example.test', 'https://example.test/?a=1', 'https://example.test/#x']) {
      const error = thrownBy(() => normalizeOrigin(text));
      expect(error.code, text).to.equal('INVALID_ARGUMENT');
      expect(error.message).not.to.include('secret');
    }
  });

  it('knows loopback names and addresses', () => {
    const spellings = ['http://localhost.:1', 'http://LOCALHOST', 'http://api.localhost.', 'http://127.0.0.2', 'http://127.1', 'http://2130706433', 'http://127.0.0.1.', 'http://[0:0:0:0:0:0:0:1]', 'http://[::ffff:127.0.0.1]', 'http://[::ffff:127.255.0.1]:9'];
    for (const origin of ['http://localhost:1', 'http://api.localhost', 'http://127.0.0.1', 'http://127.9.8.7:5', 'http://[::1]:8080', ...spellings]) {
      expect(isLoopback(origin), origin).to.equal(true);
    }
    for (const origin of ['http://10.0.0.1', 'http://example.test', 'http://[::2]', 'http://127.example.test', 'http://localhost.example.test', 'http://127.0.0.1.example.test', 'http://[::ffff:10.0.0.1]', 'http://[::ffff:128.0.0.1]', 'http://0.0.0.0']) {
      expect(isLoopback(origin), origin).to.equal(false);
    }
  });

  it('warns for plain HTTP beyond loopback only, naming the command and scheme+host+port', () => {
    const { warnings } = insecureHttpWarnings('login', 'http://taskdag.example.test');
    expect(warnings).to.have.length(1);
    expect(warnings![0]).to.include({ kind: 'insecure-remote-http', severity: 'warning' });
    expect(warnings![0]!.message).to.include('login').and.include('http://taskdag.example.test:80').and.include('without transport encryption');
    expect(insecureHttpWarnings('link', 'https://taskdag.example.test')).to.deep.equal({});
    expect(insecureHttpWarnings('init', 'http://127.0.0.1:8080')).to.deep.equal({});
    expect(hostPortOf('https://example.test/base')).to.equal('https://example.test:443');
  });
});
