import { expect } from 'chai';
import { enforcePolicy, runChecked, actionsPluginsAllow, questionAbout } from '../../application/policy.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { OperationRegistry } from '../../application/registry.js';
import { take } from '../../domain/lifecycle.js';
import type { InstalledPlugin, PluginData, PluginRequest, PluginTable } from '../../domain/plugins.js';
import { FakePluginRuntime, RESTORE_GUARD, WIP_LIMIT } from '../support/fake-plugin-runtime.js';
import { NOW, addTask, newDraft, thrownBy } from '../support/graphs.js';

const installed = (name: string, module: string, data: PluginData = null): InstalledPlugin => ({
  name,
  module,
  api_version: 1,
  installed_at: NOW,
  installed_by: 'alice',
  data,
});

describe('policy (application)', () => {
  let runtime: FakePluginRuntime;
  const source = () => runtime;
  beforeEach(() => {
    runtime = new FakePluginRuntime();
  });

  it('without plugins, neither builds the question nor makes the runtime', () => {
    let made = 0;
    enforcePolicy(
      () => {
        made++;
        return runtime;
      },
      {},
      () => {
        throw new Error('asked');
      },
    );
    expect(made).to.equal(0);
  });

  it('asks every plugin in name order, each with its own data; the first refusal wins', () => {
    const order: string[] = [];
    for (const name of ['b', 'a', 'c']) {
      runtime.modules.set(`/${name}.js`, {
        name,
        apiVersion: 1,
        decide: (request: PluginRequest) => {
          order.push(`${name}:${JSON.stringify(request.data)}`);
          return name === 'b' ? { allow: false, reason: 'b says no' } : { allow: true };
        },
      });
    }
    const table: PluginTable = { b: installed('b', '/b.js', 2), a: installed('a', '/a.js', 1), c: installed('c', '/c.js', 3) };
    const error = thrownBy(() => enforcePolicy(source, table, () => questionAbout('take', { id: 'T-1' }, 'bob', [], newDraft().graph)));
    expect(error.code).to.equal('PLUGIN_REFUSED');
    expect(error.details).to.include({ plugin: 'b', reason: 'b says no' });
    expect(order).to.deep.equal(['a:1', 'b:2']);
  });

  it('refuses, before asking, a plugin whose recorded API version is not supported, or whose data it rejects', () => {
    const table = { 'wip-limit': { ...installed('wip-limit', WIP_LIMIT, { limit: 1 }), api_version: 3 } };
    expect(thrownBy(() => enforcePolicy(source, table, () => questionAbout('take', {}, 'bob', [], newDraft().graph))).code).to.equal('PLUGIN_API_INCOMPATIBLE');
    const invalid = { 'wip-limit': installed('wip-limit', WIP_LIMIT, { limit: 'x' }) };
    expect(thrownBy(() => enforcePolicy(source, invalid, () => questionAbout('take', {}, 'bob', [], newDraft().graph))).code).to.equal('PLUGIN_DATA_INVALID');
    expect(runtime.asked).to.deep.equal([]);
  });

  it('runChecked asks only when the operation changed something, with the nodes it touched', () => {
    const draft = newDraft('bob');
    addTask(draft, 'T-1');
    const table = { 'wip-limit': installed('wip-limit', WIP_LIMIT, { limit: 5 }) };
    const registry = new OperationRegistry(OPERATIONS);
    const operation = registry.get('take') as never;
    const context = { draft, ids: { nodeSuffix: () => '0', projectId: () => 'p' }, log: [] };
    runChecked(operation, context, { id: 'T-1' }, () => table, source, () => take(draft, 'T-1'));
    expect(runtime.asked).to.have.length(1);
    const { request } = runtime.asked[0]!;
    expect(request).to.deep.include({ operation: 'take', args: { id: 'T-1' }, agent: 'bob', claims: { bob: ['T-1'] }, preview: false, data: { limit: 5 } });
    expect(request.nodes.map((node) => [node.id, node.before?.status, node.after?.status])).to.deep.equal([['T-1', 'open', 'in_progress']]);
    // Taking it again changes nothing: nothing to commit, nobody asked.
    runChecked(operation, context, { id: 'T-1' }, () => table, source, () => take(draft, 'T-1'));
    expect(runtime.asked).to.have.length(1);
  });

  it('allowed_actions keeps what the plugins allow, asks with preview, and leaves the graph as it was', () => {
    const draft = newDraft('bob');
    for (const id of ['T-1', 'T-2']) addTask(draft, id);
    take(draft, 'T-1');
    const before = structuredClone(draft.graph);
    const services = { runtime: source, registry: new OperationRegistry(OPERATIONS), ids: { nodeSuffix: () => '0', projectId: () => 'p' } };
    const view = { graph: draft.graph, now: NOW, agent: 'bob' };
    const limited = { 'wip-limit': installed('wip-limit', WIP_LIMIT, { limit: 1 }) };
    expect(actionsPluginsAllow(['take', 'add-note', 'update'], 'T-2', view, limited, services)).to.deep.equal(['add-note', 'update']);
    expect(runtime.asked.every(({ request }) => request.preview)).to.equal(true);
    expect(actionsPluginsAllow(['take', 'add-note'], 'T-2', view, { 'wip-limit': installed('wip-limit', WIP_LIMIT, { limit: 2 }) }, services)).to.deep.equal(['take', 'add-note']);
    // A plugin that cannot answer allows nothing.
    expect(actionsPluginsAllow(['take', 'add-note'], 'T-2', view, { gone: installed('gone', '/nowhere.js') }, services)).to.deep.equal([]);
    expect(draft.graph).to.deep.equal(before);
  });
});

describe('the example plugins (examples/plugins/)', () => {
  const guard = require(RESTORE_GUARD);
  const wip = require(WIP_LIMIT);
  const request = (extra: Partial<PluginRequest>): PluginRequest => ({ operation: 'take', args: {}, agent: 'bob', nodes: [], claims: {}, preview: false, data: null, ...extra });
  const task = (status: string, by: string | null) => ({ status, claim: by ? { by, at: NOW } : null }) as never;

  it('restore-guard: only orchestrator and recovery restore; every other operation is allowed', () => {
    expect(guard.name).to.equal('restore-guard');
    expect(guard.apiVersion).to.equal(1);
    for (const agent of ['orchestrator', 'recovery']) expect(guard.decide(request({ operation: 'restore', agent }))).to.deep.equal({ allow: true });
    expect(guard.decide(request({ operation: 'restore', agent: 'alice' }))).to.deep.equal({ allow: false, reason: 'only orchestrator and recovery may restore a snapshot, not alice' });
    expect(guard.decide(request({ operation: 'init', agent: 'alice' }))).to.deep.equal({ allow: true });
  });

  it('wip-limit: its data is {limit, per_agent?} with whole limits of at least 1', () => {
    expect(wip.checkData({ limit: 2 })).to.equal(null);
    expect(wip.checkData({ limit: 2, per_agent: { orchestrator: 10 } })).to.equal(null);
    for (const data of [null, [], { limit: 0 }, { limit: 1.5 }, { limit: '2' }, { limit: 2, per_agent: [] }, { limit: 2, per_agent: { bob: 0 } }]) {
      expect(wip.checkData(data), JSON.stringify(data)).to.be.a('string');
    }
  });

  it('wip-limit: refuses only a new task in progress past the holder\'s limit', () => {
    const data = { limit: 2, per_agent: { orchestrator: 3 } };
    const newClaim = [{ id: 'T-3', before: task('open', null), after: task('in_progress', 'bob') }];
    expect(wip.decide(request({ data, nodes: newClaim, claims: { bob: ['T-1', 'T-3'] } }))).to.deep.equal({ allow: true });
    expect(wip.decide(request({ data, nodes: newClaim, claims: { bob: ['T-1', 'T-2', 'T-3'] } }))).to.deep.equal({
      allow: false,
      reason: 'bob would hold 3 tasks in progress; the limit is 2',
    });
    const takenOver = [{ id: 'T-3', before: task('in_progress', 'bob'), after: task('in_progress', 'orchestrator') }];
    expect(wip.decide(request({ agent: 'orchestrator', data, nodes: takenOver, claims: { orchestrator: ['T-1', 'T-2', 'T-3'] } })).allow).to.equal(true);
    // Work already held, over the limit or not, is never refused.
    const held = [{ id: 'T-1', before: task('in_progress', 'bob'), after: task('in_progress', 'bob') }];
    expect(wip.decide(request({ data, nodes: held, claims: { bob: ['T-1', 'T-2', 'T-3', 'T-4'] } })).allow).to.equal(true);
    const released = [{ id: 'T-1', before: task('in_progress', 'bob'), after: task('open', null) }];
    expect(wip.decide(request({ data, nodes: released, claims: { bob: ['T-2', 'T-3', 'T-4'] } })).allow).to.equal(true);
  });
});
