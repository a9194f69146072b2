import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { NodePluginRuntime } from '../../adapters/node-plugin-runtime.js';
import type { InstalledPlugin, PluginRequest } from '../../domain/plugins.js';
import { thrownBy } from '../support/graphs.js';
import { AT } from '../support/states.js';
import { useTempDir } from '../support/temp-dir.js';

const request = (extra: Partial<PluginRequest> = {}): PluginRequest => ({
  operation: 'take',
  args: { id: 'T-1' },
  agent: 'bob',
  nodes: [],
  claims: { bob: ['T-1'] },
  preview: false,
  data: { limit: 1 },
  ...extra,
});

describe('NodePluginRuntime', function () {
  this.timeout(20_000);
  const dir = useTempDir('taskdag-plugins-');
  let sut: NodePluginRuntime;
  let counter = 0;
  beforeEach(() => {
    sut = new NodePluginRuntime(300);
  });
  afterEach(() => sut.close());
  /** Each module under a fresh name: Node caches what it required. */
  const module = (source: string) => {
    const file = path.join(dir(), `plugin-${++counter}.js`);
    writeFileSync(file, `'use strict';\n${source}\n`);
    return file;
  };
  const installedFrom = (file: string, name: string): InstalledPlugin => ({ name, module: file, api_version: 1, installed_at: AT, installed_by: 'alice', data: null });

  it('reads a declaration and resolves the module from the working directory', () => {
    const file = module(`module.exports = { name: 'ok', apiVersion: 1, decide: () => ({ allow: true }) };`);
    expect(sut.declaration(path.basename(file), dir())).to.deep.equal({ name: 'ok', api_version: 1, module: file });
  });

  it('refuses a module that does not implement plugin API 1: another version, no name, no decide', () => {
    expect(thrownBy(() => sut.declaration(module(`module.exports = { name: 'v2', apiVersion: 2, decide() {} };`), '/')).details).to.deep.equal({ plugin: 'v2', declared: 2, supported: [1] });
    expect(thrownBy(() => sut.declaration(module(`module.exports = { apiVersion: 1, decide() {} };`), '/')).code).to.equal('PLUGIN_API_INCOMPATIBLE');
    expect(thrownBy(() => sut.declaration(module(`module.exports = { name: 'mute', apiVersion: 1 };`), '/')).code).to.equal('PLUGIN_API_INCOMPATIBLE');
    expect(thrownBy(() => sut.declaration(module(`module.exports = { name: 'Bad Name', apiVersion: 1, decide() {} };`), '/')).code).to.equal('INVALID_ARGUMENT');
  });

  it('is unavailable when the module is missing or fails to load, naming the plugin and the cause', () => {
    const missing = path.join(dir(), 'nowhere.js');
    expect(thrownBy(() => sut.decide(installedFrom(missing, 'gone'), request())).details).to.include({ plugin: 'gone', module: missing, cause: 'missing' });
    const broken = module(`require('./not-there-either');`);
    expect(thrownBy(() => sut.declaration(broken, '/')).details).to.include({ cause: 'load-failed' });
  });

  it('hands decide a frozen copy and returns its decision', () => {
    const file = module(`module.exports = { name: 'strict', apiVersion: 1, decide(request) {
      request.claims.bob.push('T-9');
      return { allow: false, reason: 'no' };
    } };`);
    const asked = request();
    expect(thrownBy(() => sut.decide(installedFrom(file, 'strict'), asked)).details).to.include({ cause: 'threw' });
    expect(asked.claims.bob).to.deep.equal(['T-1']);
    const polite = module(`module.exports = { name: 'polite', apiVersion: 1, decide: (request) => ({ allow: false, reason: request.agent + ' may not' }) };`);
    expect(sut.decide(installedFrom(polite, 'polite'), request())).to.deep.equal({ allow: false, reason: 'bob may not' });
  });

  it('fails closed on a throw, a malformed answer, a promise, a renamed module, and a loop past the time bound', () => {
    const cases: [string, string][] = [
      ['threw', `decide() { throw new Error('boom'); }`],
      ['bad-answer', `decide() { return true; }`],
      ['bad-answer', `decide() { return { allow: false, reason: '' }; }`],
      ['bad-answer', `decide() { return Promise.resolve({ allow: true }); }`],
      ['timeout', `decide() { for (;;) {} }`],
    ];
    for (const [cause, decide] of cases) {
      const file = module(`module.exports = { name: 'p', apiVersion: 1, ${decide} };`);
      const error = thrownBy(() => sut.decide(installedFrom(file, 'p'), request()));
      expect(error.code, decide).to.equal('PLUGIN_RUNTIME_UNAVAILABLE');
      expect(error.details, decide).to.include({ plugin: 'p', cause });
    }
    const renamed = module(`module.exports = { name: 'new-name', apiVersion: 1, decide: () => ({ allow: true }) };`);
    expect(thrownBy(() => sut.decide(installedFrom(renamed, 'old-name'), request())).details).to.include({ cause: 'renamed' });
  });

  it('runs plugin code in a worker that sees no environment, and starts a fresh one after a timeout', () => {
    process.env.TASKDAG_PLUGIN_PROBE = 'secret';
    try {
      const peek = module(`module.exports = { name: 'peek', apiVersion: 1, decide: () => ({ allow: false, reason: 'env ' + JSON.stringify(process.env) }) };`);
      expect(sut.decide(installedFrom(peek, 'peek'), request())).to.deep.equal({ allow: false, reason: 'env {}' });
    } finally {
      delete process.env.TASKDAG_PLUGIN_PROBE;
    }
    const stuck = module(`module.exports = { name: 'stuck', apiVersion: 1, decide() { for (;;) {} } };`);
    expect(thrownBy(() => sut.decide(installedFrom(stuck, 'stuck'), request())).details).to.include({ cause: 'timeout' });
    // The looping thread is gone, not waited for: the next plugin answers.
    const fine = module(`module.exports = { name: 'fine', apiVersion: 1, decide: () => ({ allow: true }) };`);
    expect(sut.decide(installedFrom(fine, 'fine'), request())).to.deep.equal({ allow: true });
  });

  it('stops a module whose loading loops', () => {
    const file = module(`for (;;) {}`);
    expect(thrownBy(() => sut.declaration(file, '/')).details).to.include({ cause: 'timeout', timeout_ms: 300 });
  });

  it('checks data with the plugin: null or true is valid, a string says why not', () => {
    const file = module(`module.exports = { name: 'd', apiVersion: 1, decide: () => ({ allow: true }), checkData: (data) => data && data.limit > 0 ? null : 'limit must be positive' };`);
    const plugin = installedFrom(file, 'd');
    expect(() => sut.checkData(plugin, { limit: 1 })).not.to.throw();
    const error = thrownBy(() => sut.checkData(plugin, { limit: 0 }));
    expect(error.code).to.equal('PLUGIN_DATA_INVALID');
    expect(error.details).to.deep.equal({ plugin: 'd', reason: 'limit must be positive' });
    const lenient = module(`module.exports = { name: 'e', apiVersion: 1, decide: () => ({ allow: true }) };`);
    expect(() => sut.checkData(installedFrom(lenient, 'e'), 'anything')).not.to.throw();
  });
});
