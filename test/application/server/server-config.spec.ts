import { expect } from 'chai';
import { advertisedUrl, parseServerConfig, renderServerConfig, reviewOf, sameServerConfig, storeOf } from '../../../application/server/server-config.js';
import { databaseUrlProblem, parseEnvFile } from '../../../application/server/server-env.js';

const base = { version: 1, host: '127.0.0.1', port: 0, dataRoot: '/srv/d', stateHome: '/srv/s', uiRoot: '/srv/ui' };

describe('server.json: the store it selects', () => {
  it('files when absent, postgresql when it says so; anything else is named as the problem', () => {
    const files = parseServerConfig(JSON.stringify(base));
    expect('config' in files && storeOf(files.config)).to.equal('files');
    const database = parseServerConfig(JSON.stringify({ ...base, store: 'postgresql' }));
    expect('config' in database && storeOf(database.config)).to.equal('postgresql');
    expect(parseServerConfig(JSON.stringify({ ...base, store: 'mysql' }))).to.deep.equal({ problem: 'store must be one of files, postgresql' });
    expect(parseServerConfig(JSON.stringify({ ...base, store: 'postgresql', databaseUrl: 'postgresql://x' }))).to.deep.equal({ problem: 'unknown fields: databaseUrl' });
  });

  it('plugins: the operator\'s allow-list, plugin names to absolute module paths; anything else is named as the problem', () => {
    const listed = parseServerConfig(JSON.stringify({ ...base, plugins: { 'wip-limit': '/opt/taskdag/plugins/wip-limit.js' } }));
    expect('config' in listed && listed.config.plugins).to.deep.equal({ 'wip-limit': '/opt/taskdag/plugins/wip-limit.js' });
    expect(parseServerConfig(JSON.stringify({ ...base, plugins: ['/x.js'] }))).to.deep.equal({ problem: 'plugins must be an object: plugin name -> absolute module path' });
    expect(parseServerConfig(JSON.stringify({ ...base, plugins: { 'Bad Name': '/x.js' } }))).to.deep.equal({ problem: 'plugins: "Bad Name" is not a plugin name (1-64 of a-z 0-9 . _ -)' });
    expect(parseServerConfig(JSON.stringify({ ...base, plugins: { wip: './wip.js' } }))).to.deep.equal({ problem: 'plugins.wip must be an absolute path' });
    const config = { ...base, version: 1 as const, plugins: { wip: '/a.js' } };
    expect(sameServerConfig(config, { ...config, plugins: { wip: '/b.js' } })).to.equal(false);
    expect(sameServerConfig({ ...base, version: 1, plugins: {} }, { ...base, version: 1 })).to.equal(true);
  });

  it('review: any when absent (the same config as an explicit any), independent when it says so; anything else is named as the problem', () => {
    const independent = parseServerConfig(JSON.stringify({ ...base, review: 'independent' }));
    expect('config' in independent && reviewOf(independent.config)).to.equal('independent');
    expect(parseServerConfig(JSON.stringify({ ...base, review: 'strict' }))).to.deep.equal({ problem: 'review must be one of any, independent' });
    expect(sameServerConfig({ ...base, version: 1, review: 'any' }, { ...base, version: 1 })).to.equal(true);
    expect(sameServerConfig({ ...base, version: 1, review: 'independent' }, { ...base, version: 1 })).to.equal(false);
  });

  it('advertiseUrl: the http://host:port other processes forward to; absent, where the server listens, a wildcard host as loopback', () => {
    const advertised = parseServerConfig(JSON.stringify({ ...base, advertiseUrl: 'http://10.0.0.5:7407' }));
    expect('config' in advertised && advertisedUrl(advertised.config, { host: '0.0.0.0', port: 7407 })).to.equal('http://10.0.0.5:7407');
    const config = { ...base, version: 1 as const };
    expect(advertisedUrl(config, { host: '0.0.0.0', port: 7407 })).to.equal('http://127.0.0.1:7407');
    expect(advertisedUrl(config, { host: '::', port: 7407 })).to.equal('http://127.0.0.1:7407');
    expect(advertisedUrl(config, { host: '10.0.0.6', port: 41234 })).to.equal('http://10.0.0.6:41234');
    expect(advertisedUrl(config, { host: 'fd00::6', port: 7407 })).to.equal('http://[fd00::6]:7407');
    const problem = 'advertiseUrl must be http://host:port, the address the other server processes reach this one on';
    for (const wrong of ['https://h:1', 'http://h', 'http://h:1/path', 'http://user:pw@h:1', 'h:1', 7407]) {
      expect(parseServerConfig(JSON.stringify({ ...base, advertiseUrl: wrong })), String(wrong)).to.deep.equal({ problem });
    }
  });

  it('an explicit files store is the default one: rendered without it, and the same config', () => {
    const explicit = { ...base, version: 1 as const, store: 'files' as const };
    expect(sameServerConfig(explicit, { ...base, version: 1 })).to.equal(true);
    expect(renderServerConfig({ ...base, version: 1 })).not.to.include('store');
    expect(JSON.parse(renderServerConfig({ ...base, version: 1, store: 'postgresql' })).store).to.equal('postgresql');
  });

  it('the connection string is a server.env line a shell and systemd read alike, and must be a postgresql:// URL', () => {
    const url = 'postgresql://taskdag:p4ss@%2Fvar%2Frun%2Fpostgresql:5432/taskdag';
    const parsed = parseEnvFile(`TASKDAG_SERVER_PASSWORD=secret\nTASKDAG_DATABASE_URL=${url}\n`);
    expect('entries' in parsed && parsed.entries.get('TASKDAG_DATABASE_URL')).to.equal(url);
    expect(databaseUrlProblem(url)).to.equal(null);
    expect(databaseUrlProblem(undefined)).to.include('no TASKDAG_DATABASE_URL line');
    expect(databaseUrlProblem('mysql://x')).to.include('postgresql://');
  });
});
