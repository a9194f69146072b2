import { nodeIds, nodeOf, plainGraph } from '../../domain/node-map.js';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { FsProjectStore } from '../../adapters/fs-project-store.js';
import { assertEdgeAllowed } from '../../domain/edges.js';
import { GraphIndex } from '../../domain/graph-index.js';
import type { Edge, Graph, State } from '../../domain/model.js';
import { derivedStatus, readyTaskIds } from '../../domain/status.js';
import { runCli } from '../support/cli.js';

// The bench is plain JavaScript beside the sources; tests reach it through a dynamic import.
const GENERATOR = path.resolve(__dirname, '../../../bench/generate.mjs');

interface Fixture {
  checkout: string;
  projectId: string;
  stateDir: string;
  env: Record<string, string>;
  nodes: number;
  log: number;
  pools: { take: string[]; 'take-wide': string[]; submit: string[]; accept: string[] };
  sample: { task: string; context: string };
}

/** Reads the project through the store. */
function withState<T>(fixture: Fixture, check: (state: State) => T): Promise<T> {
  return new FsProjectStore(fixture.projectId, fixture.stateDir, stateDirectoryLock(fixture.stateDir)).readState((state) => check(plainGraph(state)));
}

/** Every edge, added again in order under the product's own rules (kinds, duplicates, cycles). */
function assertEdgesValid(state: State): void {
  const graph: Graph = { ...state, edges: [] };
  const index = new GraphIndex(graph);
  for (const edge of state.edges) {
    assertEdgeAllowed(graph, index, edge as Edge);
    graph.edges.push(edge);
    index.invalidate();
  }
}

describe('bench project generator (bench/generate.mjs)', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'taskdag-bench-gen-'));
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('writes a project the store and the CLI read, with valid edges and the pools the mutations need', async () => {
    const { writeProject } = await import(GENERATOR);
    const fixture: Fixture = await writeProject(path.join(root, 'small'), 'small', { size: 400, logEntries: 900, poolSize: 3 });
    await withState(fixture, (state) => {
      // The size, and the bench scope's tasks on top: one per run of `take`, and `context`'s.
      expect(nodeIds(state)).to.have.length(400 + 3 + 1);
      expect(state.log).to.have.length(900);
      expect(state.revision).to.equal(900);
      assertEdgesValid(state);

      const index = new GraphIndex(state);
      const statusOf = (id: string) => derivedStatus(state, index, nodeOf(state, id)!);
      expect(fixture.pools.take.map(statusOf)).to.deep.equal(['ready', 'ready', 'ready']);
      expect(fixture.pools['take-wide'].map(statusOf)).to.deep.equal(['ready', 'ready', 'ready']);
      expect(fixture.pools.submit.map(statusOf)).to.deep.equal(['in_progress', 'in_progress', 'in_progress']);
      expect(fixture.pools.accept.map(statusOf)).to.deep.equal(['submitted', 'submitted', 'submitted']);
    });

    const shown = await runCli(['show', fixture.sample.task], { cwd: fixture.checkout, env: { PATH: process.env.PATH, ...fixture.env } });
    expect(shown.code).to.equal(0);
    expect(shown.json.node.id).to.equal(fixture.sample.task);
  });

  it("gives the bench scope's task as much knowledge at every size, and the large-answer task more as the project grows", async () => {
    const { writeProject, SCOPED_SAMPLE } = await import(GENERATOR);
    const counts = [];
    for (const size of [400, 4000]) {
      const fixture: Fixture = await writeProject(path.join(root, String(size)), `s${size}`, { size, logEntries: size, poolSize: 2 });
      const env = { PATH: process.env.PATH, ...fixture.env };
      const scoped = await runCli(['context', fixture.sample.context], { cwd: fixture.checkout, env });
      const wide = await runCli(['context', fixture.sample.task], { cwd: fixture.checkout, env });
      expect([scoped.code, wide.code]).to.deep.equal([0, 0]);
      const deprecated = scoped.json.alerts.filter((alert: { kind: string }) => alert.kind === 'KNOWLEDGE_DEPRECATED_SOON');
      counts.push({ active: scoped.json.knowledge.length, deprecated: deprecated.length, wide: wide.json.knowledge.length });
    }
    expect(counts.map(({ active, deprecated }) => [active, deprecated])).to.deep.equal([
      [SCOPED_SAMPLE.active, SCOPED_SAMPLE.deprecated],
      [SCOPED_SAMPLE.active, SCOPED_SAMPLE.deprecated],
    ]);
    expect(counts[1]!.wide).to.be.greaterThan(5 * counts[0]!.wide);
  });

  it('gives the shared workload the ready tasks its plan implies', async () => {
    const { sharedWorkload, writeWorkloadProject } = await import(GENERATOR);
    const plan: { done: boolean; deps: number[] }[] = sharedWorkload(300);
    const fixture: Fixture = await writeWorkloadProject(path.join(root, 'shared'), plan);
    const expected = plan.filter((task) => !task.done && task.deps.every((dep) => plan[dep]!.done)).length;
    await withState(fixture, (state) => {
      assertEdgesValid(state);
      expect(readyTaskIds(state, new GraphIndex(state)).size).to.equal(expected);
    });
  });
});

describe('bench linked checkout (bench/linked.mjs)', function () {
  this.timeout(60_000);
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'taskdag-bench-linked-'));
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('links a checkout to a real server serving a copy of the project: show, status and take answer as they do locally', async () => {
    const { writeProject } = await import(GENERATOR);
    const { linkedFixture, LINKED_COMMANDS } = await import(path.resolve(__dirname, '../../../bench/linked.mjs'));
    const local: Fixture = await writeProject(path.join(root, 'local'), 'small', { size: 100, logEntries: 200, poolSize: 2 });
    const { fixture: linked, stop } = await linkedFixture(local, root, path.resolve(__dirname, '../../../dist/taskdag.js'));
    try {
      expect(LINKED_COMMANDS).to.deep.equal(['show', 'status', 'take']);
      const answers = (fixture: Fixture, args: string[]) => runCli(args, { cwd: fixture.checkout, env: { PATH: process.env.PATH!, ...fixture.env } });
      for (const args of [['show', local.sample.task], ['status'], ['take', local.pools.take[0]!, '--as', 'a']]) {
        const [here, there] = [await answers(local, args), await answers(linked, args)];
        expect([here.code, there.code], args.join(' ')).to.deep.equal([0, 0]);
        const [mine, theirs] = [here.json, there.json];
        if (args[0] === 'take') {
          // Claimed at two moments: the claim's time and the node's are the only difference.
          expect(theirs.node.claim.by).to.equal(mine.node.claim.by);
          expect(theirs.node.id).to.equal(mine.node.id);
        } else {
          // A stale claim's age is measured when each answer is made.
          const ageless = (answer: { alerts?: { age_ms?: number; message?: string }[] }) => ({ ...answer, alerts: answer.alerts?.map(({ age_ms: _age, message: _message, ...alert }) => alert) });
          expect(ageless(theirs), args.join(' ')).to.deep.equal(ageless(mine));
        }
      }
    } finally {
      stop();
    }
  });
});
