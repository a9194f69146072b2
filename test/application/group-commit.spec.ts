import { expect } from 'chai';
import sinon from 'sinon';
import { GroupCommitDispatcher } from '../../application/group-commit.js';
import { GraphDraft } from '../../domain/draft.js';
import type { Graph } from '../../domain/model.js';
import { nodeOf } from '../../domain/node-map.js';
import { DomainError } from '../../domain/errors.js';
import { REQUEST_WINDOW } from '../../domain/request-window.js';
import { rejectionOf } from '../support/failures.js';
import { inMemoryServices } from '../support/services.js';

const task = (id: string, blocked_by: string[] = []) => ({ id, initiative: 'core', title: id, body: '', acceptance: 'ok', blocked_by });

describe('GroupCommitDispatcher (mutations committed together)', () => {
  async function setup() {
    const services = inMemoryServices();
    const sut = new GroupCommitDispatcher(services);
    const run = (operation: string, args: Record<string, unknown>, agent: string | null = 'alice') =>
      sut.dispatch({ project: 'memory', operation, args, agent });
    await run('init', {});
    await run('add-initiative', { name: 'core' });
    const transact = sinon.spy(services.stores.store, 'transact');
    return { sut, run, store: services.stores.store, transact };
  }

  it('commits the mutations that arrive together in one transaction, each on the graph the previous left', async () => {
    const { run, transact } = await setup();
    const results = await Promise.all([run('add-task', task('T-1')), run('add-task', task('T-2', ['T-1'])), run('add-task', task('T-3', ['T-2']))]);
    expect(results.map((result: any) => result.node.id)).to.deep.equal(['T-1', 'T-2', 'T-3']);
    expect(transact.callCount).to.equal(1);
    const state: any = await run('state', {}, null);
    expect(state.log.slice(-3).map((entry: any) => [entry.revision, entry.node])).to.deep.equal([[2, 'T-1'], [3, 'T-2'], [4, 'T-3']]);
  });

  it('32 agents racing take in one group: exactly one wins, the others get ALREADY_CLAIMED', async () => {
    const { run, transact } = await setup();
    await run('add-task', task('T-1'));
    transact.resetHistory();
    const outcomes = await Promise.allSettled(Array.from({ length: 32 }, (_, index) => run('take', { id: 'T-1' }, `agent-${index}`)));
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).to.have.length(1);
    const codes = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as DomainError).code] : []));
    expect(new Set(codes)).to.deep.equal(new Set(['ALREADY_CLAIMED']));
    expect(transact.callCount).to.equal(1);
    expect(((won[0] as PromiseFulfilledResult<any>).value).context.claim.by).to.match(/^agent-/);
  });

  it('a request that fails halfway is rolled back and answered alone; the others of its group commit', async () => {
    const { run } = await setup();
    await run('add-task', task('T-1'));
    const [first, cyclic, third] = await Promise.allSettled([
      run('add-task', task('T-2', ['T-1'])),
      // Creates T-0 then fails on the edge: nothing of it may remain.
      run('add-node', { id: 'T-0', kind: 'resolvable', subkind: 'task', title: 'x', initiative: 'core', blocked_by: ['T-missing'] }),
      run('add-task', task('T-3', ['T-2'])),
    ]);
    expect(first.status).to.equal('fulfilled');
    expect(third.status).to.equal('fulfilled');
    expect(cyclic.status).to.equal('rejected');
    const state: any = await run('state', {}, null);
    expect(Object.keys(state.nodes)).to.deep.equal(['T-1', 'T-2', 'T-3']);
    expect(state.revision).to.equal(state.log.length);
  });

  it('a failing commit fails every request of the group and commits nothing', async () => {
    const { run, store, transact } = await setup();
    transact.restore();
    const before = await store.inspect();
    sinon.stub(store, 'transact').rejects(new DomainError('STORAGE_ERROR', 'disk full', { cause: 'ENOSPC' }));
    const outcomes = await Promise.allSettled([run('add-task', task('T-1')), run('add-task', task('T-2'))]);
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await store.inspect()).to.deep.equal(before);
  });

  it('the result a group leaves with its store until it is durable holds no draft; undo still puts every request back', async () => {
    const { run, store, transact } = await setup();
    await run('add-task', task('T-1'));
    transact.restore();
    const held: { result: unknown; undo?: () => void; graph: Graph }[] = [];
    const real = store.transact.bind(store);
    sinon.stub(store, 'transact').callsFake((work: any, after?: any) =>
      real((graph, plugins) => {
        const done = work(graph, plugins);
        held.push({ ...done, graph });
        return done;
      }, after),
    );
    await Promise.all([run('take', { id: 'T-1' }), run('add-task', task('T-2', ['T-1'])), run('update', { id: 'T-404', title: 'x' })].map((request) => request.catch(() => undefined)));
    expect(held).to.have.length(1);
    // What a store keeps until its fsync returns: the answers, the change set, the revision.
    expect(draftsReachedFrom(held[0]!.result)).to.equal(0);
    // Undone on the graph the group ran on (a store that undoes, PostgreSQL's, does it there).
    const { graph } = held[0]!;
    expect((nodeOf(graph, 'T-1') as any).claim?.by).to.equal('alice');
    held[0]!.undo!();
    expect(nodeOf(graph, 'T-2')).to.equal(undefined);
    expect((nodeOf(graph, 'T-1') as any).claim).to.equal(null);
  });

  it('reads and invalid requests do not queue: they answer as the local dispatcher does', async () => {
    const { run, transact } = await setup();
    expect((await rejectionOf<DomainError>(() => run('add-task', { id: 'T-1' }))).code).to.equal('MISSING_FIELD');
    expect((await rejectionOf<DomainError>(() => run('add-task', task('T-1'), null))).code).to.equal('MISSING_AGENT');
    expect(((await run('status', {}, null)) as any).summary.ready).to.equal(0);
    expect(transact.callCount).to.equal(0);
  });

  describe('requests with an id (retries that never apply twice, docs/remote.md)', () => {
    async function keyed() {
      const services = inMemoryServices();
      let suffix = 0;
      let now = Date.parse('2026-11-25T10:00:00.000Z');
      services.ids = { ...services.ids, nodeSuffix: () => String(++suffix).padStart(8, '0') };
      services.clock = { now: () => new Date(now).toISOString() };
      const sut = new GroupCommitDispatcher(services);
      const run = (operation: string, args: Record<string, unknown>, key?: { id: string; fingerprint: string }) =>
        sut.dispatch({ project: 'memory', operation, args, agent: 'alice', ...(key ? { key } : {}) });
      await run('init', {});
      await run('add-initiative', { name: 'core' });
      const tasks = async () => Object.keys(((await run('state', {})) as any).nodes);
      return { run, tasks, store: services.stores.store, advance: (ms: number) => (now += ms) };
    }
    const { id: _id, ...anonymous } = task('x');
    const key = { id: 'req-1', fingerprint: 'add-task x' };

    it('answers a retry with the first answer and applies nothing again, in the same group or a later one', async () => {
      const { run, tasks } = await keyed();
      const [first, sameGroup] = await Promise.all([run('add-task', anonymous, key), run('add-task', anonymous, key)]);
      const later = await run('add-task', anonymous, key);
      expect(sameGroup).to.deep.equal(first);
      expect(later).to.deep.equal(first);
      expect(await tasks()).to.deep.equal([(first as any).node.id]);
    });

    it('refuses the id sent with another request with REQUEST_ID_REUSED, alone in its group, changing nothing', async () => {
      const { run, tasks } = await keyed();
      const first: any = await run('add-task', anonymous, key);
      const [reused, other] = await Promise.allSettled([run('add-task', { ...anonymous, title: 'y' }, { ...key, fingerprint: 'add-task y' }), run('add-task', anonymous)]);
      expect(reused.status === 'rejected' && (reused.reason as DomainError).code).to.equal('REQUEST_ID_REUSED');
      expect(other.status).to.equal('fulfilled');
      expect((await tasks()).sort()).to.deep.equal([first.node.id, (other as PromiseFulfilledResult<any>).value.node.id].sort());
    });

    it('does not remember a request that failed or changed nothing: its retry runs again', async () => {
      const { run, tasks } = await keyed();
      const failed = await rejectionOf(() => run('add-task', { ...anonymous, initiative: 'missing' }, key));
      expect(failed.code).to.equal('INITIATIVE_NOT_FOUND');
      await run('add-initiative', { name: 'missing' });
      const retried: any = await run('add-task', { ...anonymous, initiative: 'missing' }, key);
      expect(await tasks()).to.deep.equal([retried.node.id]);
    });

    it('forgets an id once REQUEST_WINDOW.maxAgeMs has passed: a retry after that applies again', async () => {
      const { run, tasks, advance } = await keyed();
      await run('add-task', anonymous, key);
      advance(REQUEST_WINDOW.maxAgeMs - 1);
      await run('add-task', anonymous, key);
      expect(await tasks()).to.have.length(1);
      advance(1);
      await run('add-task', anonymous, key);
      expect(await tasks()).to.have.length(2);
    });

    it('a batch retried with its id gets its first answer, though the revision it expected has passed', async () => {
      const { run, tasks } = await keyed();
      const plan = { expect_revision: 1, operations: [{ op: 'add-task', args: anonymous }] };
      const first = await run('batch', plan, key);
      expect(await run('batch', plan, key)).to.deep.equal(first);
      expect(await tasks()).to.have.length(1);
      expect((await rejectionOf(() => run('batch', { ...plan, expect_revision: 2 }, { ...key, fingerprint: 'other' }))).code).to.equal('REQUEST_ID_REUSED');
    });
  });
});

/** How many GraphDrafts `value` reaches through its properties, arrays, maps and sets. */
function draftsReachedFrom(value: unknown, seen = new Set<unknown>()): number {
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof GraphDraft) return 1;
  const inside = value instanceof Map ? [...value.keys(), ...value.values()] : value instanceof Set ? [...value] : Object.values(value);
  return inside.reduce((sum: number, item) => sum + draftsReachedFrom(item, seen), 0);
}
