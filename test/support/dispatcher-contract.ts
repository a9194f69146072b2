import { expect } from 'chai';
import type { OperationDispatcher } from '../../application/operation.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { AgentName } from '../../domain/model.js';
import { NO_NOTES, WIP_LIMIT } from './fake-plugin-runtime.js';
import { rejectionOf } from './failures.js';
import { outputViolation } from './output-schemas.js';

export interface DispatcherUnderTest {
  dispatcher: OperationDispatcher;
  /** A project with no state yet: the suite runs `init` first. */
  project: string;
  /** A server behind HTTP: what it does not offer remotely must answer REMOTE_UNSUPPORTED_OPERATION. */
  remote?: boolean;
  /** The command line: an unknown field cannot be typed as one, so it is refused as an unknown flag (details name the command). */
  commandLine?: boolean;
  cleanup(): Promise<void> | void;
}

/** They set a server up on this machine rather than act on a project: test/e2e/server-*.spec.ts covers them. */
const MACHINE_OPERATIONS = new Set(['server init', 'server doctor', 'server setup', 'server credential add', 'server credential list', 'server credential remove']);
/** A checkout's own remote commands run on the client, never through a dispatcher's project: test/e2e/remote-*.spec.ts covers them. */
const CLIENT_OPERATIONS = new Set(['link', 'login', 'logout', 'push', 'pull']);
/** The web board's: served on this machine and linked to, never a project's operation: test/e2e/board-*.spec.ts covers them. */
const BOARD_OPERATIONS = new Set(['ui', 'urls']);

type Failure = Error & { code: string; details: Record<string, unknown> };
const task = (id: string, blocked_by: string[] = [], extra: Record<string, unknown> = {}) => ({
  id,
  initiative: 'core',
  title: id,
  body: '',
  acceptance: 'ok',
  blocked_by,
  ...extra,
});
const gate = (id: string, extra: Record<string, unknown> = {}) => ({ id, initiative: 'core', title: id, body: '', purpose: 'decide', ...extra });

/**
 * The observable behaviour of every operation, as any dispatcher must show it: the in-memory and
 * file-backed local dispatchers today, the HTTP remote when it exists. Every result also matches
 * its published output schema and survives structuredClone (plain data, nothing lazy).
 */
export function dispatcherContract(name: string, open: () => Promise<DispatcherUnderTest>): void {
  describe(`dispatcher contract: ${name}`, function () {
    this.timeout(30_000);
    let sut: DispatcherUnderTest;
    const covered = new Set<string>();

    const run = async (operation: string, args: Record<string, unknown> = {}, agent: AgentName | null = 'alice'): Promise<any> => {
      covered.add(operation);
      const result = await sut.dispatcher.dispatch({ project: sut.project, operation, args, agent });
      expect(outputViolation(operation, result), operation).to.equal(null);
      expect(structuredClone(result), operation).to.deep.equal(result);
      return result;
    };
    const failing = async (operation: string, args: Record<string, unknown>, agent: AgentName | null = 'alice'): Promise<Failure> => {
      covered.add(operation);
      const before = await sut.dispatcher.dispatch({ project: sut.project, operation: 'state', args: {}, agent: null });
      const error = await rejectionOf<Failure>(() => sut.dispatcher.dispatch({ project: sut.project, operation, args, agent }));
      const after = await sut.dispatcher.dispatch({ project: sut.project, operation: 'state', args: {}, agent: null });
      expect(after, `${operation} failed with ${error.code} but changed the state`).to.deep.equal(before);
      return error;
    };

    beforeEach(async () => {
      sut = await open();
      await run('init');
      await run('add-initiative', { name: 'core', desc: 'Core work' });
    });
    afterEach(async () => sut.cleanup());

    /** What only local mode offers: remotely it must be refused, changing nothing. */
    const localOnly = async (operation: string, args: Record<string, unknown>, agent: AgentName | null = 'alice') => {
      expect((await failing(operation, args, agent)).code, operation).to.equal('REMOTE_UNSUPPORTED_OPERATION');
    };

    it('init: creates once, then changes nothing; --force needs an agent and snapshots what it resets', async () => {
      expect(await run('init')).to.include({ created: false });
      if (sut.remote) return localOnly('init', { force: true });
      expect((await failing('init', { force: true }, null)).code).to.equal('MISSING_AGENT');
      const reset = await run('init', { force: true });
      expect(reset.created).to.equal(true);
      expect(reset.snapshot.reason).to.equal('force-init');
      expect((await run('snapshots')).snapshots.map((snapshot: any) => snapshot.id)).to.deep.equal([reset.snapshot.id]);
    });

    it('creation: initiatives, tasks (lists normalised), gates, knowledge, raw nodes; failures change nothing', async () => {
      expect((await failing('add-initiative', { name: 'core' })).code).to.equal('ID_CONFLICT');
      const { node } = await run('add-task', task('T-1', [' ', ''], { tags: [' a', 'b '] }));
      expect(node).to.include({ id: 'T-1', status: 'open' });
      expect(node.tags).to.deep.equal(['a', 'b']);
      expect((await run('add-gate', gate('G-1'))).node.status).to.equal('open');
      expect((await run('add-knowledge', { id: 'K-1', initiative: 'core', title: 'k', body: 'tip', scope_tags: ['a'] })).node.status).to.equal('active');
      expect((await run('add-node', { id: 'T-0', kind: 'resolvable', subkind: 'task', title: 'old', initiative: 'core', status: 'done' })).node.status).to.equal('done');
      expect((await failing('add-task', task('T-1'))).code).to.equal('ID_CONFLICT');
      expect((await failing('add-task', { ...task('T-2'), initiative: 'nowhere' })).code).to.equal('INITIATIVE_NOT_FOUND');
      const unknownField = await failing('add-task', { ...task('T-2'), colour: 'red' });
      expect(unknownField.code).to.equal('INVALID_ARGUMENT');
      expect(unknownField.details).to.include(sut.commandLine ? { command: 'add-task' } : { field: 'colour' });
      expect((await failing('add-task', task('T-2'), null)).code).to.equal('MISSING_AGENT');
      expect((await failing('add-task', { id: 'T-2' })).code).to.equal('MISSING_FIELD');
    });

    it('edges: add and remove exactly one; cycles and self-edges are refused', async () => {
      await run('add-task', task('T-1'));
      await run('add-task', task('T-2', ['T-1']));
      expect((await failing('add-edge', { from: 'T-2', to: 'T-1', type: 'BLOCKS' })).code).to.equal('CYCLE_DETECTED');
      expect((await failing('add-edge', { from: 'T-1', to: 'T-1', type: 'BLOCKS' })).code).to.equal('SELF_EDGE');
      expect((await failing('add-edge', { from: 'T-1', to: 'T-2', type: 'BLOCKS' })).code).to.equal('DUPLICATE_EDGE');
      expect(await run('remove-edge', { from: 'T-1', to: 'T-2', type: 'BLOCKS' })).to.include({ removed: true });
      expect(await run('remove-edge', { from: 'T-1', to: 'T-2', type: 'BLOCKS' })).to.include({ removed: false });
      expect((await run('add-edge', { from: 'T-1', to: 'T-2', type: 'DERIVED_FROM' })).edge).to.deep.equal({ from: 'T-1', to: 'T-2', type: 'DERIVED_FROM' });
    });

    it('next, leases and fencing: the best task with why, renew, a late holder refused, a sweep by recovery only', async () => {
      await run('add-task', task('T-1'));
      await run('add-task', task('T-2', ['T-1']));
      await run('add-task', task('T-3', [], { priority: 1 }));
      const ranked = await run('status', { ranked: true });
      expect(ranked.tasks.ready.map((entry: any) => [entry.id, entry.ranking])).to.deep.equal([
        ['T-3', { priority: 1, critical_path: 1 }],
        ['T-1', { priority: 2, critical_path: 2 }],
      ]);
      const first = await run('next', { lease: '10m' });
      expect(first.node).to.include({ id: 'T-3', status: 'in_progress' });
      expect(first.why).to.include({ priority: 1, priority_set: true, rank: 1, ready: 2 });
      expect(first.node.claim).to.include({ by: 'alice', lease_ms: 600_000 });
      const second = await run('next', {}, 'bob');
      expect(second.node.id).to.equal('T-1');
      expect(second.why).to.include({ priority: 2, priority_set: false, critical_path: 2 });
      expect(await run('next', {}, 'carol')).to.deep.equal({ node: null, context: null, why: null });
      const token = first.node.claim.token;
      expect((await run('renew', { id: 'T-3', lease: '20m', claim_token: token })).node.claim).to.include({ token, lease_ms: 1_200_000 });
      expect((await failing('renew', { id: 'T-3' }, 'bob')).code).to.equal('NOT_OWNER');
      await run('release', { id: 'T-3', claim_token: token });
      const retaken = await run('take', { id: 'T-3', lease: '5m' });
      expect(retaken.node.claim.token).to.not.equal(token);
      const late = await failing('submit', { id: 'T-3', note: 'late', claim_token: token });
      expect(late.code).to.equal('CLAIM_FENCED');
      expect(late.details).to.include({ id: 'T-3', token, held_by: 'alice', held_token: retaken.node.claim.token });
      expect((await failing('sweep-leases', {})).code).to.equal('NOT_OWNER');
      expect(await run('sweep-leases', {}, 'recovery')).to.deep.equal({ released: [] });
    });

    it('the task loop: take (one claimant), release, submit, reject, accept with newly_ready, reopen, cancel', async () => {
      await run('add-task', task('T-1'));
      await run('add-task', task('T-2', ['T-1']));
      expect((await failing('take', { id: 'T-2' })).code).to.equal('NOT_READY');
      const taken = await run('take', { id: 'T-1' });
      expect(taken.freshly_claimed).to.equal(true);
      expect(taken.context.node.id).to.equal('T-1');
      expect((await run('take', { id: 'T-1' })).freshly_claimed).to.equal(false);
      expect((await failing('take', { id: 'T-1' }, 'bob')).code).to.equal('ALREADY_CLAIMED');
      expect(await run('release', { id: 'T-1' })).to.include({ released: true });
      await run('take', { id: 'T-1' });
      expect((await failing('submit', { id: 'T-1' })).code).to.equal('MISSING_FIELD');
      expect((await run('submit', { id: 'T-1', note: 'done' })).newly_ready).to.deep.equal([]);
      expect((await run('reject', { id: 'T-1', reason: 'no tests' }, 'bob')).node.status).to.equal('open');
      await run('take', { id: 'T-1' });
      await run('submit', { id: 'T-1', note: 'with tests' });
      const accepted = await run('accept', { id: 'T-1' }, 'bob');
      expect(accepted.node.status).to.equal('done');
      expect(accepted.newly_ready).to.deep.equal(['T-2']);
      expect((await run('reopen', { id: 'T-1', reason: 'regression' })).node.status).to.equal('open');
      expect((await run('cancel', { id: 'T-2', reason: 'dropped' }, 'orchestrator')).node.status).to.equal('canceled');
    });

    it('gates and knowledge: resolve with newly_ready, supersede, deprecate; notes and updates', async () => {
      await run('add-gate', gate('G-1'));
      await run('add-task', task('T-1', ['G-1']));
      const resolved = await run('resolve', { id: 'G-1', choice: 'A', rationale: 'cheaper' }, 'bob');
      expect(resolved.newly_ready).to.deep.equal(['T-1']);
      expect((await failing('resolve', { id: 'G-1', choice: 'B', rationale: 'again' })).code).to.equal('INVALID_STATUS');
      expect((await run('add-gate', gate('G-2', { supersedes: 'G-1' }))).node.id).to.equal('G-2');
      expect((await run('show', { id: 'G-1' })).node.status).to.equal('superseded');
      await run('add-knowledge', { id: 'K-1', initiative: 'core', title: 'k', body: 'tip', scope_node_ids: ['T-1'] });
      expect((await run('deprecate-knowledge', { id: 'K-1', reason: 'old' })).node.status).to.equal('deprecated');
      expect((await run('add-note', { id: 'T-1', text: 'see G-2' })).node.notes.map((note: any) => note.text)).to.deep.equal(['see G-2']);
      const updated = await run('update', { id: 'T-1', title: 'Renamed', tags: ['x ', ''] });
      expect(updated.node).to.include({ title: 'Renamed', revision: 3 });
      expect(updated.node.tags).to.deep.equal(['x']);
      expect((await failing('update', { id: 'T-1', title: 'Again', if_revision: 1 })).code).to.equal('REVISION_CONFLICT');
    });

    it('reads: show, state, status, context, search, history, initiatives', async () => {
      await run('add-task', task('T-1'));
      await run('add-knowledge', { id: 'K-1', initiative: 'core', title: 'Money is cents', body: 'Never floats', scope_node_ids: ['T-1'] });
      expect((await run('show', { id: 'T-1' })).type).to.equal('task');
      expect((await failing('show', { id: 'T-9' })).code).to.equal('NODE_NOT_FOUND');
      expect(Object.keys((await run('state')).nodes)).to.deep.equal(['K-1', 'T-1']);
      expect((await run('status')).summary).to.include({ ready: 1, active_knowledge: 1 });
      const context = await run('context', { id: 'T-1' });
      expect(context.knowledge.map((entry: any) => entry.node.id)).to.deep.equal(['K-1']);
      expect(context.allowed_actions).to.include('take');
      expect((await run('search', { query: 'CENTS' })).count).to.equal(1);
      expect((await run('history', { id: 'T-1' })).entries.map((entry: any) => entry.op)).to.include('add-task');
      expect((await run('initiatives')).initiatives.map((initiative: any) => initiative.name)).to.deep.equal(['core']);
    });

    it('batch: all items in one commit, or none; snapshots and restore', async () => {
      const batch = await run('batch', { operations: [{ op: 'add-task', args: task('T-1') }, { op: 'take', args: { id: 'T-1' }, as: 'bob' }] });
      expect(batch.results.map((item: any) => item.op)).to.deep.equal(['add-task', 'take']);
      expect(batch.results[1].result.context.claim.by).to.equal('bob');
      const failed = await failing('batch', { operations: [{ op: 'add-task', args: task('T-2') }, { op: 'add-task', args: task('T-1') }] });
      expect(failed.code).to.equal('BATCH_OPERATION_FAILED');
      expect(failed.details).to.include({ index: 1 });
      if (sut.remote) {
        await localOnly('snapshots', {});
        return localOnly('restore', { snapshot_id: 'any' });
      }
      const { snapshot } = await run('init', { force: true });
      expect((await run('restore', { snapshot_id: snapshot.id })).snapshot.id).to.equal(snapshot.id);
      expect(Object.keys((await run('state')).nodes)).to.deep.equal(['T-1']);
      expect((await failing('restore', { snapshot_id: 'nope' })).code).to.be.oneOf(['INVALID_ARGUMENT', 'STORAGE_ERROR']);
    });

    it('plugins: add, list, set-data and remove; a plugin refuses before the commit and in allowed_actions', async () => {
      if (sut.remote) {
        await localOnly('plugin add', { module: WIP_LIMIT });
        await localOnly('plugin list', {});
        await localOnly('plugin set-data', { name: 'wip-limit', data: '{}' });
        return localOnly('plugin remove', { name: 'wip-limit' });
      }
      await run('add-task', task('T-1'));
      await run('add-task', task('T-2'));
      const added = await run('plugin add', { module: WIP_LIMIT, data: '{"limit":1}' });
      expect(added.plugin).to.include({ name: 'wip-limit', module: WIP_LIMIT, installed_by: 'alice' });
      expect((await run('plugin list', {}, null)).plugins).to.deep.equal([added.plugin]);
      await run('take', { id: 'T-1' }, 'bob');
      const refused = await failing('take', { id: 'T-2' }, 'bob');
      expect(refused.code).to.equal('PLUGIN_REFUSED');
      expect(refused.details).to.include({ plugin: 'wip-limit', operation: 'take', agent: 'bob' });
      expect((await run('context', { id: 'T-2' }, 'bob')).allowed_actions).not.to.include('take');
      expect((await failing('plugin set-data', { name: 'wip-limit', data: '{"limit":0}' })).code).to.equal('PLUGIN_DATA_INVALID');
      await run('plugin set-data', { name: 'wip-limit', data: '{"limit":2}' });
      await run('take', { id: 'T-2' }, 'bob');
      expect((await run('plugin remove', { name: 'wip-limit' })).plugin.name).to.equal('wip-limit');
      expect((await run('plugin list', {}, null)).plugins).to.deep.equal([]);
    });

    it('plugins: the context a take answers with offers only the actions the plugins allow', async () => {
      if (sut.remote) return;
      await run('add-task', task('T-1'));
      await run('add-task', task('T-2'));
      expect((await run('take', { id: 'T-1' }, 'bob')).context.allowed_actions).to.include('add-note');
      await run('plugin add', { module: NO_NOTES });
      expect((await run('take', { id: 'T-2' }, 'bob')).context.allowed_actions).not.to.include('add-note');
      const batched = await run('batch', { operations: [{ op: 'release', args: { id: 'T-2' } }, { op: 'take', args: { id: 'T-2' } }] }, 'bob');
      expect(batched.results[1].result.context.allowed_actions).not.to.include('add-note');
    });

    it('plugins: takes racing past a limit of one have exactly one winner (decided under the lock, or in the group)', async () => {
      if (sut.remote) return;
      const ids = ['T-1', 'T-2', 'T-3', 'T-4', 'T-5'];
      for (const id of ids) await run('add-task', task(id));
      await run('plugin add', { module: WIP_LIMIT, data: '{"limit":1}' });
      const outcomes = await Promise.allSettled(ids.map((id) => sut.dispatcher.dispatch({ project: sut.project, operation: 'take', args: { id }, agent: 'bob' })));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
      const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Failure).code] : []));
      expect(refusals).to.deep.equal(['PLUGIN_REFUSED', 'PLUGIN_REFUSED', 'PLUGIN_REFUSED', 'PLUGIN_REFUSED']);
    });

    it('host: migrate --dry-run reports the project as schema 1 and writes nothing', async () => {
      if (sut.remote) return localOnly('migrate', { dry_run: true }, null);
      const result = await run('migrate', { dry_run: true }, null);
      expect(result.projects.map((project: any) => [project.form, project.action])).to.deep.equal([['schema-1', 'none']]);
    });

    it('every declared operation is covered by this suite', () => {
      const uncovered = OPERATIONS.map((operation) => operation.name).filter(
        (operation) => !covered.has(operation) && !MACHINE_OPERATIONS.has(operation) && !CLIENT_OPERATIONS.has(operation) && !BOARD_OPERATIONS.has(operation),
      );
      expect(uncovered).to.deep.equal([]);
    });
  });
}
