import { expect } from 'chai';
import { AllowListedPluginRuntime } from '../../../application/server/allow-listed-plugin-runtime.js';
import { PluginAllowList } from '../../../application/server/plugin-allow-list.js';
import type { InstalledPlugin } from '../../../domain/plugins.js';
import { FakePluginRuntime, WIP_LIMIT } from '../../support/fake-plugin-runtime.js';
import { thrownBy } from '../../support/graphs.js';
import { AT } from '../../support/states.js';

const pushed = (name: string) => ({ name, api_version: 1, installed_at: AT, installed_by: 'mallory', data: { limit: 1 } });
const request = { operation: 'take', args: {}, agent: 'bob', nodes: [], claims: { bob: ['T-1', 'T-2'] }, preview: false, data: { limit: 1 } };

describe("PluginAllowList: a server's plugins come from its operator's list, by name", () => {
  const sut = new PluginAllowList({ 'wip-limit': WIP_LIMIT });

  it('adopts a pushed table on its own modules, and refuses a name it does not run with PLUGIN_NOT_ALLOWED', () => {
    expect(sut.adopt({ 'wip-limit': pushed('wip-limit') })).to.deep.equal({ 'wip-limit': { ...pushed('wip-limit'), module: WIP_LIMIT } });
    const error = thrownBy(() => sut.adopt({ 'wip-limit': pushed('wip-limit'), trap: pushed('trap') }));
    expect(error.code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(error.details).to.deep.equal({ plugin: 'trap', allowed: ['wip-limit'] });
  });

  it('a runtime over it loads the listed module whatever module a stored table records, and nothing for a name not listed', () => {
    const modules = new FakePluginRuntime();
    const runtime = new AllowListedPluginRuntime(sut, modules);
    const stored = (name: string, module: string): InstalledPlugin => ({ ...pushed(name), module });
    // The fake knows no /tmp/trap.js: an answer at all means the listed module ran.
    expect(runtime.decide(stored('wip-limit', '/tmp/trap.js'), request)).to.deep.equal({ allow: true });
    expect(modules.asked.map(({ plugin }) => plugin)).to.deep.equal(['wip-limit']);
    expect(thrownBy(() => runtime.decide(stored('trap', WIP_LIMIT), request)).code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(thrownBy(() => runtime.checkData(stored('trap', WIP_LIMIT), null)).code).to.equal('PLUGIN_NOT_ALLOWED');
    expect(modules.asked).to.have.length(1);
  });
});
