import { expect } from 'chai';
import { take } from '../../domain/lifecycle.js';
import {
  assertSupportedApi,
  claimsOf,
  claimsWith,
  installedPlugin,
  parsePluginData,
  pluginRefusal,
  pluginsInOrder,
  pluginTableProblem,
  withPluginChange,
  type InstalledPlugin,
} from '../../domain/plugins.js';
import { NOW, addTask, newDraft, thrownBy } from '../support/graphs.js';
import { sampleState } from '../support/states.js';

const plugin = (name: string, extra: Partial<InstalledPlugin> = {}): InstalledPlugin => ({
  name,
  module: `/plugins/${name}.js`,
  api_version: 1,
  installed_at: NOW,
  installed_by: 'alice',
  data: null,
  ...extra,
});

describe('policy plugins (domain rules)', () => {
  it('supports plugin API 1 only, and says so when a plugin declares another', () => {
    expect(() => assertSupportedApi('p', 1)).not.to.throw();
    for (const declared of [2, 0, '1', undefined]) {
      const error = thrownBy(() => assertSupportedApi('p', declared));
      expect(error.code).to.equal('PLUGIN_API_INCOMPATIBLE');
      expect(error.details).to.deep.equal({ plugin: 'p', declared: declared ?? null, supported: [1] });
    }
  });

  it('checks a stored plugin table entry by entry', () => {
    expect(pluginTableProblem({})).to.equal(null);
    expect(pluginTableProblem({ guard: plugin('guard') })).to.equal(null);
    expect(pluginTableProblem([])).to.match(/not an object/);
    expect(pluginTableProblem({ 'Bad Name': plugin('Bad Name') })).to.match(/not a plugin name/);
    expect(pluginTableProblem({ guard: plugin('other') })).to.match(/another name/);
    expect(pluginTableProblem({ guard: { ...plugin('guard'), module: '' } })).to.match(/no module/);
    expect(pluginTableProblem({ guard: { ...plugin('guard'), api_version: 1.5 } })).to.match(/api_version/);
    expect(pluginTableProblem({ guard: { ...plugin('guard'), installed_at: 'yesterday' } })).to.match(/installed_at/);
    const { data: _data, ...withoutData } = plugin('guard');
    expect(pluginTableProblem({ guard: withoutData })).to.match(/no data/);
  });

  it('asks plugins in name order', () => {
    expect(pluginsInOrder({ b: plugin('b'), a: plugin('a'), c: plugin('c') }).map((entry) => entry.name)).to.deep.equal(['a', 'b', 'c']);
  });

  it('counts tasks in progress by claim holder', () => {
    const draft = newDraft('bob');
    for (const id of ['T-1', 'T-2', 'T-3']) addTask(draft, id);
    take(draft, 'T-1');
    take(draft, 'T-2');
    draft.actingAs('carol', () => take(draft, 'T-3'));
    expect(claimsOf(draft.graph)).to.deep.equal({ bob: ['T-1', 'T-2'], carol: ['T-3'] });
  });

  it('follows a change of claims from the nodes it touched, as a new scan would find them', () => {
    const draft = newDraft('bob');
    for (const id of ['T-1', 'T-2', 'T-3']) addTask(draft, id);
    take(draft, 'T-1');
    draft.actingAs('carol', () => take(draft, 'T-2'));
    const before = claimsOf(draft.graph);
    const { touched } = draft.tracking(() => {
      take(draft, 'T-3');
      draft.actingAs('orchestrator', () => take(draft, 'T-2'));
    });
    expect(claimsWith(before, touched)).to.deep.equal(claimsOf(draft.graph));
    expect(claimsWith(before, touched)).to.deep.equal({ bob: ['T-1', 'T-3'], orchestrator: ['T-2'] });
    expect(before).to.deep.equal({ bob: ['T-1'], carol: ['T-2'] });
  });

  it('a refusal is PLUGIN_REFUSED naming the plugin, the operation, the agent, the reason and the nodes', () => {
    const error = pluginRefusal('guard', { operation: 'take', args: { id: 'T-1' }, agent: 'bob', nodes: [{ id: 'T-1', before: null, after: null }], claims: {}, preview: false }, 'too much');
    expect(error.code).to.equal('PLUGIN_REFUSED');
    expect(error.details).to.deep.equal({ plugin: 'guard', operation: 'take', agent: 'bob', reason: 'too much', nodes: ['T-1'] });
  });

  it('a change of the plugin table is one more revision with a log entry naming the plugin, not its data', () => {
    const state = sampleState();
    const changed = withPluginChange(state, { op: 'plugin.add', plugin: 'guard', at: NOW, by: 'alice' });
    expect(changed.revision).to.equal(state.revision + 1);
    expect(changed.log.at(-1)).to.deep.equal({ revision: state.revision + 1, at: NOW, by: 'alice', op: 'plugin.add', node: null, plugin: 'guard' });
    expect(changed.log.slice(0, -1)).to.deep.equal(state.log);
  });

  it('names the installed plugins when asked for one that is not', () => {
    expect(installedPlugin({ a: plugin('a') }, 'a').name).to.equal('a');
    expect(thrownBy(() => installedPlugin({ b: plugin('b'), a: plugin('a') }, 'c')).details).to.deep.equal({ plugin: 'c', installed: ['a', 'b'] });
  });

  it('reads plugin data as JSON, and names the plugin when it is unreadable', () => {
    expect(parsePluginData('p', '{"limit":2}')).to.deep.equal({ limit: 2 });
    expect(parsePluginData('p', 'null')).to.equal(null);
    const error = thrownBy(() => parsePluginData('p', '{limit:2}'));
    expect(error.code).to.equal('PLUGIN_DATA_INVALID');
    expect(error.details.plugin).to.equal('p');
  });
});

describe('GraphDraft.tracking (the nodes an operation touches)', () => {
  it('gives each node changed inside, as it was before the first change and as it is now', () => {
    const draft = newDraft('bob');
    addTask(draft, 'T-1');
    const { touched } = draft.tracking(() => {
      take(draft, 'T-1');
      draft.appendNote(draft.requireNode('T-1'), { at: NOW, by: 'bob', text: 'on it' });
      addTask(draft, 'T-2');
    });
    expect(touched.map((node) => [node.id, node.before?.status ?? null, node.after?.status ?? null])).to.deep.equal([
      ['T-1', 'open', 'in_progress'],
      ['T-2', null, 'open'],
    ]);
    expect(touched[0]!.after!.notes).to.have.length(1);
  });

  it('nests: an inner tracking sees its own changes, the outer one all of them', () => {
    const draft = newDraft('bob');
    const outer = draft.tracking(() => {
      addTask(draft, 'T-1');
      return draft.tracking(() => addTask(draft, 'T-2')).touched.map((node) => node.id);
    });
    expect(outer.result).to.deep.equal(['T-2']);
    expect(outer.touched.map((node) => node.id)).to.deep.equal(['T-1', 'T-2']);
  });
});
