import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020.js';
import { activity, activitySchema } from '../../../application/board/activity.js';
import { catalog, catalogSchema } from '../../../application/board/catalog.js';
import { nodeDetail, nodeDetailSchema } from '../../../application/board/node-detail.js';
import { boardSnapshot, boardSnapshotSchema, snapshotEtag } from '../../../application/board/snapshot.js';
import type { LogEntry } from '../../../domain/model.js';
import { DomainError } from '../../../domain/errors.js';
import { thrownBy } from '../../support/graphs.js';
import { AT, sampleState } from '../../support/states.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
const matches = (schema: object, value: unknown) => {
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).to.equal(true);
};

describe('board views (the read routes of the web board)', () => {
  it('snapshot: every node summarised with its derived status, every edge and initiative, the counts', () => {
    const state = sampleState();
    const sut = boardSnapshot('p-1', state, AT);
    matches(boardSnapshotSchema, sut);
    expect(sut.nodes.map((node) => [node.id, node.status])).to.deep.equal([['G-1', 'open'], ['K-1', 'active'], ['T-1', 'blocked']]);
    expect(sut.edges).to.deep.equal([{ from: 'G-1', to: 'T-1', type: 'BLOCKS' }]);
    expect(sut.summary).to.include({ blocked: 1, open_gates: 1, active_knowledge: 1 });
    expect(snapshotEtag(state)).to.equal(`"g1r${state.revision}"`);
  });

  it('node detail: context without actions, what it blocks, and its history', () => {
    const sut = nodeDetail(sampleState(), 'G-1', AT);
    matches(nodeDetailSchema, sut);
    expect(sut.blocks.map((node) => node.id)).to.deep.equal(['T-1']);
    expect(sut.context.allowed_actions).to.deep.equal([]);
    expect(sut.history.map((entry) => entry.node)).to.deep.equal(['G-1']);
    expect(thrownBy(() => nodeDetail(sampleState(), 'X-1', AT)).code).to.equal('NODE_NOT_FOUND');
  });

  it('activity: newest first, paged by revision, never hiding that it is cut', () => {
    const log = Array.from({ length: 7 }, (_, index) => ({ revision: index + 1, at: AT, by: 'a', op: 'x', node: null })) as LogEntry[];
    const first = activity(log, { limit: 3 });
    matches(activitySchema, first);
    expect(first.entries.map((entry) => entry.revision)).to.deep.equal([7, 6, 5]);
    expect(first).to.include({ total: 7, next_before: 5 });
    const last = activity(log, { limit: 3, before: 2 });
    expect(last.entries.map((entry) => entry.revision)).to.deep.equal([1]);
    expect(last.next_before).to.equal(null);
    for (const options of [{ limit: 0 }, { limit: 501 }, { before: 0 }]) {
      expect(thrownBy(() => activity(log, options)).code, JSON.stringify(options)).to.equal('INVALID_ARGUMENT');
    }
  });

  it('activity: a page keeps the entries of its oldest revision together, so paging back loses none of a batch', () => {
    const revisions = [1, 2, 3, 3, 3, 3, 4, 5];
    const log = revisions.map((revision, index) => ({ revision, at: AT, by: 'a', op: `op-${index}`, node: null })) as LogEntry[];
    const seen: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = activity(log, { limit: 3, ...(before === undefined ? {} : { before }) });
      seen.push(...page.entries.map((entry) => entry.op));
      if (page.next_before === null) break;
      before = page.next_before;
    }
    expect(seen).to.deep.equal(log.map((entry) => entry.op).reverse());
    expect(activity(log, { limit: 3 }).entries.map((entry) => entry.revision)).to.deep.equal([5, 4, 3, 3, 3, 3]);
  });

  it('catalog: each project with its name and last activity; an unreadable one stays listed with neutral counters and its error', async () => {
    const stores = {
      list: async () => ['b', 'shop-1a2b3c4d'],
      open: (id: string) => ({
        readGraph: async (read: (graph: any) => unknown) => {
          if (id === 'b') throw new DomainError('STORAGE_ERROR', 'tasks.json is cut short', { cause: 'EINVALID' });
          return read(sampleState());
        },
      }),
    };
    const sut = await catalog(stores as never, { now: () => AT });
    matches(catalogSchema, sut);
    expect(sut.projects.map((project) => [project.id, project.name, project.readable])).to.deep.equal([['b', 'b', false], ['shop-1a2b3c4d', 'shop', true]]);
    const state = sampleState();
    const latest = [...Object.values(state.nodes).map((node) => node.updated_at), ...Object.values(state.initiatives).map((item) => item.created_at)].sort().at(-1);
    expect(sut.projects[1]!.last_activity).to.be.a('string').and.equal(latest);
    expect(sut.projects[0]!.last_activity).to.equal(null);
    expect(sut.projects[0]!.summary).to.deep.include({ ready: 0, blocked: 0 });
    expect(sut.projects[0]!.error).to.deep.equal({ code: 'STORAGE_ERROR', message: 'tasks.json is cut short' });
  });

  it('catalog: a project is counted once per revision, again when its revision moves', async () => {
    const state = sampleState();
    const stores = { list: async () => ['p'], open: () => ({ readGraph: async (read: (graph: unknown) => unknown) => read(state) }) };
    // The clock is read only to count: its calls are the countings.
    let countings = 0;
    const clock = { now: () => (countings++, AT) };
    const memo = new Map();
    const first = await catalog(stores as never, clock, { memo });
    const again = await catalog(stores as never, clock, { memo });
    expect(again).to.deep.equal(first);
    expect(countings).to.equal(1);
    state.revision += 1;
    const moved = await catalog(stores as never, clock, { memo });
    expect(countings).to.equal(2);
    expect(moved.projects[0]!.revision).to.equal(state.revision);
  });

  it("catalog: each project lists the checkouts seen using it; one with none lists none", async () => {
    const stores = { list: async () => ['p', 'q'], open: () => ({ readGraph: async (read: (graph: unknown) => unknown) => read(sampleState()) }) };
    const seen = [{ label: 'laptop:/home/ann/shop', last_seen: AT }];
    const sut = await catalog(stores as never, { now: () => AT }, { checkouts: { p: seen } });
    matches(catalogSchema, sut);
    expect(sut.projects.map((project) => project.checkouts)).to.deep.equal([seen, []]);
  });
});
