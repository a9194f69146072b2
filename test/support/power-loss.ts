import { hasNode, nodeOf, plainGraph } from '../../domain/node-map.js';
import { FsProjectStore } from '../../adapters/fs-project-store.js';
import type { ProjectLock } from '../../application/ports/project-lock.js';
import type { ProjectStore, StoredState } from '../../application/ports/project-store.js';
import { GraphDraft } from '../../domain/draft.js';
import { historyOf } from '../../domain/history.js';
import { registerInitiative } from '../../domain/initiatives.js';
import type { State } from '../../domain/model.js';
import { projectState } from '../../domain/projection.js';
import { withPluginChange, type PluginTable } from '../../domain/plugins.js';
import { freshState, restoredState } from '../../domain/replacement.js';
import { CrashFileSystem, PowerLoss, seededRandom } from './crash-file-system.js';
import { NOW, addTask } from './graphs.js';
import { InMemoryProjectStore } from './in-memory-stores.js';
import { sampleState } from './states.js';

const LOCATION = '/home/projects/p';

/** One process at a time here: the lock only has to let the work run. */
const noLock: ProjectLock = { withLock: async (_mode, work) => work() };

type Step = (store: ProjectStore) => Promise<unknown>;

/** Creates a task; large bodies push the ledger past its checkpoint threshold, so checkpoints are rewritten. */
const commit =
  (id: string, bodyBytes: number): Step =>
  (store) =>
    store.transact((graph) => {
      const draft = new GraphDraft(graph, NOW, 'alice');
      if (!Object.hasOwn(graph.initiatives, 'core')) registerInitiative(draft, 'core', 'fixtures'); // gone after a force-init
      addTask(draft, id, { definition: 'x'.repeat(bodyBytes) });
      return { result: null, changes: draft.changes() };
    });

const displacedOf = (current: StoredState) => (current.kind === 'valid' ? current.state : current.kind === 'unreadable' ? current.reached : null);

/** As `init --force` does: a force-init snapshot, then a fresh state of the next fence generation. */
const forceInit: Step = (store) =>
  store.rewrite(async (current) => {
    if (current.kind === 'absent') return { result: null, state: freshState(null) };
    await store.snapshots.take('force-init', current, NOW);
    return { result: null, state: freshState(displacedOf(current)) };
  });

/** As `restore` does, with the newest snapshot: a pre-restore snapshot, then the restored state. */
const restoreNewest: Step = (store) =>
  store.rewrite(async (current) => {
    const [newest] = await store.snapshots.list();
    if (!newest) return { result: null, state: null };
    const { metadata, state, plugins } = await store.snapshots.load(newest.id);
    if (current.kind !== 'absent') await store.snapshots.take('pre-restore', current, NOW);
    return { result: null, state: restoredState(state, displacedOf(current), { snapshot: metadata.id, at: NOW, by: 'alice' }), plugins };
  });

/** As `plugin set-data` does (docs/plugins.md): the plugin table and a log entry, committed with the state as one. */
const setPluginData =
  (limit: number): Step =>
  (store) =>
    store.rewrite((current) => {
      if (current.kind !== 'valid') return { result: null, state: null };
      const plugin = { name: 'wip-limit', module: '/plugins/wip-limit.js', api_version: 1, installed_at: NOW, installed_by: 'alice', data: { limit } };
      const state = withPluginChange(current.state, { op: 'plugin.set-data', plugin: plugin.name, at: NOW, by: 'alice' });
      return { result: null, state, plugins: { ...current.plugins, [plugin.name]: plugin } };
    });

const seed: Step = (store) => store.replace(sampleState());

/** A random plan: the seed state, then commits (some large), force-inits and restores. */
function plan(random: () => number, length: number): Step[] {
  const steps: Step[] = [seed];
  for (let at = 0; at < length; at++) {
    const roll = random();
    if (roll < 0.12) steps.push(forceInit);
    else if (roll < 0.22) steps.push(restoreNewest);
    else if (roll < 0.3) steps.push(setPluginData(at + 1));
    else steps.push(commit(`W-${at}`, random() < 0.3 ? 40_000 + Math.floor(random() * 40_000) : Math.floor(random() * 200)));
  }
  return steps;
}

/**
 * What must survive: the state's content (the restore event names the snapshot by an id that
 * differs between stores) and, with it, its plugin table.
 */
function comparable(state: State, plugins: PluginTable): unknown {
  const projected = projectState(state) as State;
  return { ...projected, log: projected.log.map(({ snapshot: _snapshot, ...entry }) => entry), plugins };
}

export interface CrashOutcome {
  crashed: boolean;
  /** What broke the promise (a state that does not load, lost or torn changes), or null. */
  violation: string | null;
  /** Steps acknowledged (resolved) before the power loss. */
  acknowledged: number;
  /** Whether the state found afterwards is the one after the interrupted step (it was durable already). */
  inFlightSurvived: boolean;
}

/**
 * One crash point: runs a random plan on a CrashFileSystem armed to lose power at a random file
 * operation, brings the disk back (unsynced data dropped or torn at random), and checks that the
 * project loads, equals the state after the last acknowledged step or after the interrupted one,
 * still has every acknowledged snapshot, and takes a new commit. Throws on any violation.
 */
export async function crashPoint(seedValue: number, planLength = 10): Promise<CrashOutcome> {
  const random = seededRandom(seedValue);
  const steps = plan(random, planLength);
  const disk = new CrashFileSystem();
  const reference = new InMemoryProjectStore();
  const expected: unknown[] = [];
  const files = () => new FsProjectStore('p', LOCATION, noLock, disk);
  disk.crashAt(1 + Math.floor(random() * (12 + planLength * 9)));
  let acknowledged = 0;
  let crashed = false;
  let snapshots = 0;
  for (const step of steps) {
    await step(reference);
    const current = await reference.inspect();
    if (current.kind !== 'valid') throw new Error('the reference store lost its state');
    expected.push(comparable(current.state, current.plugins ?? {}));
    try {
      await step(files());
      acknowledged++;
      snapshots = (await files().snapshots.list()).length;
    } catch (error) {
      if (!(error instanceof PowerLoss)) throw error;
      crashed = true;
      break;
    }
  }
  const store = new FsProjectStore('p', LOCATION, noLock, disk.afterPowerLoss(random));
  if (acknowledged === 0) return { crashed, violation: null, acknowledged, inFlightSurvived: false };
  try {
    const found = JSON.stringify(await store.readState((state, plugins) => comparable(plainGraph(state), plugins())));
    const before = JSON.stringify(expected[acknowledged - 1]);
    const next = expected[acknowledged] === undefined ? null : JSON.stringify(expected[acknowledged]);
    if (found !== before && found !== next) return outcome(`the state after step ${acknowledged} is neither the acknowledged one nor the next`);
    const alone = (await pointReadProblem(store)) ?? (await historyReadProblem(store));
    if (alone) return outcome(alone);
    const listed = await store.snapshots.list();
    if (listed.length < snapshots) return outcome(`${snapshots - listed.length} acknowledged snapshots lost`);
    for (const snapshot of listed) if (snapshot.reason !== 'corrupt-recovery') await store.snapshots.load(snapshot.id);
    await commit('W-after', 10)(store);
    await store.readState((state) => state);
    return { crashed, violation: null, acknowledged, inFlightSurvived: found !== before };
  } catch (error) {
    return outcome(`${error instanceof Error ? error.message : String(error)}`);
  }

  function outcome(problem: string): CrashOutcome {
    return { crashed, violation: `seed ${seedValue}, ${acknowledged} steps acknowledged: ${problem}`, acknowledged, inFlightSurvived: false };
  }
}

/**
 * Each node read alone, as a point command reads it (found by the checkpoint's slot table, not the
 * id list), is the node the whole read found, and an id the state lacks is absent.
 */
async function pointReadProblem(store: ProjectStore): Promise<string | null> {
  const whole = await store.readGraph((graph) => plainGraph(graph).nodes);
  return store.readGraph((graph) => {
    for (const [id, node] of Object.entries(whole)) if (JSON.stringify(nodeOf(graph, id)) !== JSON.stringify(node)) return `node ${id} read alone is not the node of the whole read`;
    return hasNode(graph, 'W-absent') ? 'an absent node read alone is found' : null;
  });
}

/**
 * Each node's history, read as `history` reads the ledger (readLogNaming: through the history
 * index as the crash left it, then a byte search of each record past it, only the entries around a
 * hit parsed), is its history in the whole log: a torn or cut record is skipped or refused by both
 * reads alike, and a torn or stale index is not believed.
 */
async function historyReadProblem(store: FsProjectStore): Promise<string | null> {
  const { ids, log } = await store.readState((state) => ({ ids: Object.keys(plainGraph(state).nodes), log: state.log }));
  for (const id of [...ids, 'W-absent']) {
    const whole = JSON.stringify(historyOf(log, id, Number.MAX_SAFE_INTEGER));
    const named = await store.readLogNaming(id, (state) => JSON.stringify(historyOf(state.log, id, Number.MAX_SAFE_INTEGER)));
    if (named !== whole) return `the history of ${id} read from the entries naming it is not its history in the whole log`;
  }
  return null;
}

/** Runs `count` crash points from `firstSeed`; returns the figures docs/reliability.md reports. */
export async function powerLossBattery(firstSeed: number, count: number) {
  const figures = { crash_points: 0, power_lost_mid_step: 0, acknowledged_steps: 0, in_flight_survived: 0, violations: [] as string[] };
  for (let at = 0; at < count; at++) {
    const outcome = await crashPoint(firstSeed + at);
    figures.crash_points++;
    if (outcome.crashed) figures.power_lost_mid_step++;
    figures.acknowledged_steps += outcome.acknowledged;
    if (outcome.inFlightSurvived) figures.in_flight_survived++;
    if (outcome.violation) figures.violations.push(outcome.violation);
  }
  return figures;
}
