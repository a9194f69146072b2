// Builds benchmark projects: schema-1 states of a chosen size, written through the product's own
// store adapter (FsProjectStore.replace) so the files on disk are exactly what taskdag writes.
// Node shapes come from the domain's createNode, so a field added to the model shows up here too.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { FsProjectStore } = require('../build/adapters/fs-project-store.js');
const { stateDirectoryLock } = require('../build/adapters/flock-project-lock.js');
const { GraphDraft } = require('../build/domain/draft.js');
const { createNode } = require('../build/domain/creation.js');
const { emptyGraph } = require('../build/domain/model.js');

const DOMAINS = ['billing', 'auth', 'search', 'storage', 'ui', 'api', 'infra', 'docs', 'mobile', 'data', 'ops', 'security'];
const TAGS = [
  'backend', 'frontend', 'perf', 'bug', 'refactor', 'migration', 'flaky', 'urgent', 'tech-debt', 'api', 'db', 'cache',
  'retry', 'timeout', 'oauth', 'csv', 'pdf', 'i18n', 'a11y', 'release', 'ci', 'deps', 'schema', 'queue', 'cron',
];
const WORDS = [
  'invoice', 'schema', 'endpoint', 'retry', 'cache', 'token', 'session', 'export', 'import', 'index', 'query', 'worker',
  'queue', 'webhook', 'report', 'ledger', 'refund', 'upload', 'thumbnail', 'permission', 'audit', 'migration', 'config',
  'timeout', 'pagination', 'filter', 'checkout', 'payment', 'notification', 'template', 'locale', 'backup', 'restore',
];
const VERBS = ['Add', 'Fix', 'Refactor', 'Document', 'Test', 'Remove', 'Speed up', 'Validate', 'Split', 'Harden'];
const AGENTS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'agent-1', 'agent-2', 'agent-3', 'agent-4'];
const LOG_OPS = ['take', 'submit', 'accept', 'update', 'add-note', 'release', 'reject', 'resolve', 'add-edge'];
const EPOCH = Date.parse('2026-01-05T09:00:00.000Z');

/** Bench agents: `a` works the pool tasks, `b` reviews them (review is independent of the worker). */
export const WORKER = 'a';
export const REVIEWER = 'b';

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same project every run. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const some = (list, max) => [...new Set(Array.from({ length: 1 + int(max) }, () => pick(list)))];
  return { next, int, pick, some };
}

const at = (minutes) => new Date(EPOCH + minutes * 60_000).toISOString();

/** One node of each type as the product creates it, to copy the field set from. */
function templates() {
  const graph = emptyGraph();
  graph.initiatives.tpl = { desc: '', created_at: at(0) };
  const draft = new GraphDraft(graph, at(0), 'tpl');
  const make = (type, id, specific = {}) =>
    createNode(draft, { id, type, common: { title: 't', initiative: 'tpl' }, specific, links: {}, allowUnregisteredInitiative: false, op: 'add' }, () => 'x');
  return {
    task: make('task', 'T-tpl'),
    gate: make('gate', 'G-tpl'),
    knowledge: make('knowledge', 'K-tpl', { scope: { domains: ['x'], initiatives: [], tags: [], node_ids: [] } }),
  };
}

function sentence(rng, words) {
  return Array.from({ length: words }, () => rng.pick(WORDS)).join(' ');
}

/**
 * The plan of a project of `size` nodes: 80% tasks, 10% gates, 10% knowledge, laid out in
 * creation order so that BLOCKS edges always point forward (the graph is acyclic by construction).
 * Early work is mostly done, the middle in flight, the late part open and blocked, as in a live
 * project. Blockers come from a window behind each node: chains, plus fan-in from several.
 */
export function buildState({ size, logEntries, poolSize, seed = 1, actionPools = false }) {
  const rng = random(seed);
  const tpl = templates();
  const initiativeCount = Math.max(3, Math.round(size / 500));
  const initiatives = {};
  for (let i = 0; i < initiativeCount; i++) initiatives[`init-${i}`] = { desc: `Initiative ${i}: ${sentence(rng, 6)}`, created_at: at(i) };
  const initiativeNames = Object.keys(initiatives);

  const nodes = {};
  const edges = [];
  const order = [];
  const pad = String(size).length;
  const counters = { task: 0, gate: 0, knowledge: 0 };
  const poolTotal = 3 * poolSize * 2; // take, submit, accept pools and the tasks the accepted ones unblock
  const body = size - poolTotal;

  const common = (i, id) => {
    const minute = 10 + i * 3;
    const notes = rng.next() < 0.3
      ? Array.from({ length: 1 + rng.int(3) }, (_, k) => ({ at: at(minute + 5 + k), by: rng.pick(AGENTS), text: `Note: ${sentence(rng, 10)}` }))
      : [];
    return {
      id,
      title: `${rng.pick(VERBS)} ${sentence(rng, 3 + rng.int(4))}`,
      body: `${sentence(rng, 20 + rng.int(30))}.`,
      refs: rng.next() < 0.3 ? [`docs/${rng.pick(WORDS)}.md`] : [],
      meta: rng.next() < 0.4 ? { points: 1 + rng.int(8) } : {},
      initiative: rng.pick(initiativeNames),
      domain: rng.pick(DOMAINS),
      tags: rng.some(TAGS, 3),
      revision: 1 + notes.length,
      notes,
      created_at: at(minute),
      created_by: rng.pick(AGENTS),
      updated_at: at(minute + 10),
    };
  };
  const idOf = (type, prefix) => `${prefix}${String(counters[type]++).padStart(pad, '0')}`;

  for (let i = 0; i < body; i++) {
    const roll = rng.next();
    const type = roll < 0.8 ? 'task' : roll < 0.9 ? 'gate' : 'knowledge';
    const progress = i / body;
    let node;
    if (type === 'task') node = { ...tpl.task, ...common(i, idOf('task', 'T-')), ...taskProgress(rng, progress, i) };
    else if (type === 'gate') node = { ...tpl.gate, ...common(i, idOf('gate', 'G-')), ...gateProgress(rng, progress, i) };
    else node = { ...tpl.knowledge, ...common(i, idOf('knowledge', 'K-')), ...knowledgeFields(rng, progress, i, initiativeNames, order, nodes) };
    nodes[node.id] = node;
    order.push(node.id);
    if (type !== 'knowledge') addBlockers(rng, node, i, order, nodes, edges);
    if (rng.next() < 0.05 && i > 0) edges.push({ from: node.id, to: order[rng.int(i)], type: 'DERIVED_FROM' });
  }
  supersedeGates(rng, nodes, edges);

  const pools = addPools(tpl, nodes, edges, order, poolSize, common, body);
  const state = { ...emptyGraph(), initiatives, nodes, edges, log: [] };
  // Samples are drawn before the log so that twins differing only in log length share them.
  const sample = pickSamples(rng, nodes, edges);
  state.log = buildLog(rng, order, logEntries);
  state.revision = state.log.length;
  // After every draw of the seeded generator, so that the rest of the project is as before.
  const scoped = addScopedSample(tpl, nodes, edges, initiatives, poolSize, sample.task, body);
  const scopedSample = { context: scoped.context, scoped_knowledge: scoped.knowledge };
  // Last, and only when asked: a project without them is as before.
  const actions = actionPools ? addActionPools(tpl, nodes, edges, poolSize, body) : {};
  return { state, pools: { ...pools, take: scoped.take, 'take-wide': pools.take, ...actions }, sample: { ...sample, ...scopedSample } };
}

/** The pools `addActionPools` lays down, one node per run of the command each is named after (bench/scenarios.mjs ACTIONS). */
export const ACTION_POOLS = ['release', 'reject', 'reopen', 'cancel', 'resolve', 'deprecate-knowledge'];

/**
 * Nodes for the actions on one node that the pools above do not serve, one per run, laid on a
 * built project without drawing from the seeded generator (as addScopedSample): tasks the worker
 * claimed (`release`, `cancel`), submitted (`reject`, by the reviewer) and saw accepted (`reopen`),
 * open gates that each block a task (`resolve`), and active knowledge in a scope of its own, so
 * that no task's context changes (`deprecate-knowledge`).
 */
function addActionPools(tpl, nodes, edges, poolSize, offset) {
  const pools = Object.fromEntries(ACTION_POOLS.map((name) => [name, []]));
  const common = (id, k, minute = 10 + (offset + k) * 3) => ({
    id,
    title: `Bench action node ${id}`,
    body: 'A node one bench action consumes.',
    initiative: 'init-0',
    created_at: at(minute),
    created_by: WORKER,
    updated_at: at(minute),
  });
  const task = (id, k, fields) => ({ ...tpl.task, ...common(id, k), acceptance: 'Bench acceptance', ...fields });
  const delivered = { submitted_by: WORKER, submitted_at: at(2), note: 'Bench delivery' };
  for (let k = 0; k < poolSize; k++) {
    const n = String(k).padStart(4, '0');
    const add = (pool, node) => {
      nodes[node.id] = node;
      pools[pool].push(node.id);
    };
    add('release', task(`T-bench-release-${n}`, k, { status: 'in_progress', claim: { by: WORKER, at: at(1) } }));
    add('cancel', task(`T-bench-cancel-${n}`, k, { status: 'in_progress', claim: { by: WORKER, at: at(1) } }));
    add('reject', task(`T-bench-reject-${n}`, k, { status: 'submitted', ...delivered }));
    add('reopen', task(`T-bench-reopen-${n}`, k, { status: 'done', ...delivered, done_by: WORKER, done_at: at(3), accepted_by: REVIEWER, accepted_at: at(3) }));
    add('resolve', { ...tpl.gate, ...common(`G-bench-resolve-${n}`, k), status: 'open', purpose: 'A bench decision', resolution_mode: null });
    const gated = `T-bench-gated-${n}`;
    nodes[gated] = task(gated, k, { status: 'open' });
    edges.push({ from: `G-bench-resolve-${n}`, to: gated, type: 'BLOCKS' });
    add('deprecate-knowledge', {
      ...tpl.knowledge,
      ...common(`K-bench-deprecate-${n}`, k),
      status: 'active',
      knowledge_type: 'convention',
      mitigation: 'Bench mitigation',
      scope: { domains: ['bench-deprecate'], initiatives: [], tags: [], node_ids: [] },
    });
  }
  return pools;
}

/**
 * Knowledge items every task of the bench's own scope matches: as many at every size (issue 28's
 * point commands have a small answer). The rest of the vocabulary (12 domains, 25 tags) stays the
 * same at every size while knowledge is 10% of the nodes, so any other task's context grows with
 * the project (about 100 items at 10k nodes, 820 at 50k): that is the large-answer case.
 */
export const SCOPED_SAMPLE = { active: 14, deprecated: 2, value: 'bench-scope' };

/**
 * The bench's own scope, laid on a built project without drawing from the seeded generator (so the
 * rest of the project is the same as before it): an initiative, domain and tag named
 * `SCOPED_SAMPLE.value`; `SCOPED_SAMPLE.active` active and `SCOPED_SAMPLE.deprecated` deprecated
 * knowledge items spread evenly over the file, each scoped to it by one list (tags, domains or
 * initiatives in turn) on top of its own scope; a task in that scope blocked as the large-answer
 * sample task is (`context`), and a pool of ready tasks in that scope (`take`). A task elsewhere
 * matches the scoped items by none of its values.
 */
function addScopedSample(tpl, nodes, edges, initiatives, poolSize, wideTask, offset) {
  const { value } = SCOPED_SAMPLE;
  initiatives[value] = { desc: 'The bench scope: a task here matches as much knowledge at every size', created_at: at(0) };
  const knowledge = Object.values(nodes).filter((node) => node.kind === 'knowledge');
  // Evenly over the file (a small project may hold fewer: then all it has).
  const spread = (list, count) => [...new Set(Array.from({ length: count }, (_, k) => list[Math.floor(((k + 0.5) * list.length) / count)]))].filter(Boolean);
  const chosen = [
    ...spread(knowledge.filter((node) => node.status === 'active'), SCOPED_SAMPLE.active),
    ...spread(knowledge.filter((node) => node.status === 'deprecated'), SCOPED_SAMPLE.deprecated),
  ];
  const lists = ['tags', 'domains', 'initiatives'];
  chosen.forEach((node, k) => {
    const list = lists[k % lists.length];
    node.scope = { ...node.scope, [list]: [...node.scope[list], value] };
  });
  const task = (id, i) => {
    const minute = 10 + (offset + i) * 3;
    return {
      ...tpl.task,
      id,
      title: `Work in the bench scope ${i}`,
      body: 'A task whose context is the bench scope\'s knowledge.',
      initiative: value,
      domain: value,
      tags: [value],
      created_at: at(minute),
      created_by: WORKER,
      updated_at: at(minute),
      acceptance: 'Bench acceptance',
      status: 'open',
    };
  };
  const done = Object.values(nodes).find((node) => node.status === 'done');
  const take = [];
  for (let k = 0; k < poolSize; k++) {
    const id = `T-bench-scoped-${String(k).padStart(4, '0')}`;
    nodes[id] = task(id, k);
    edges.push({ from: done.id, to: id, type: 'BLOCKS' });
    take.push(id);
  }
  const context = 'T-bench-scoped-context';
  nodes[context] = task(context, poolSize);
  for (const edge of edges.filter((edge) => edge.type === 'BLOCKS' && edge.to === wideTask)) edges.push({ ...edge, to: context });
  return { take, context, knowledge: chosen.map((node) => node.id) };
}

function taskProgress(rng, progress, i) {
  const minute = 10 + i * 3;
  const roll = rng.next();
  let status = 'open';
  if (progress < 0.45) status = roll < 0.9 ? 'done' : roll < 0.95 ? 'canceled' : 'open';
  else if (progress < 0.6) status = roll < 0.3 ? 'done' : roll < 0.5 ? 'in_progress' : roll < 0.65 ? 'submitted' : 'open';
  else status = roll < 0.03 ? 'canceled' : 'open';
  const by = rng.pick(AGENTS);
  const fields = { status, acceptance: `Reviewed: ${sentence(rng, 6)}`, definition: rng.next() < 0.5 ? sentence(rng, 12) : null };
  fields.backlog = status === 'open' && rng.next() < (progress > 0.6 ? 0.12 : 0.02);
  if (status === 'in_progress') fields.claim = { by, at: at(minute + 20) };
  if (status === 'submitted' || status === 'done') Object.assign(fields, { submitted_by: by, submitted_at: at(minute + 40), note: `Delivered: ${sentence(rng, 8)}` });
  if (status === 'done') {
    Object.assign(fields, { done_by: by, done_at: at(minute + 60), accepted_by: rng.pick(AGENTS), accepted_at: at(minute + 60) });
  }
  return fields;
}

function gateProgress(rng, progress, i) {
  const resolved = rng.next() < (progress < 0.5 ? 0.85 : 0.2);
  const fields = { status: resolved ? 'resolved' : 'open', purpose: sentence(rng, 8), resolution_mode: rng.next() < 0.5 ? 'vote' : null };
  if (resolved) {
    Object.assign(fields, { resolution: { choice: rng.pick(WORDS), rationale: sentence(rng, 12) }, resolved_by: rng.pick(AGENTS), resolved_at: at(10 + i * 3 + 30) });
  }
  return fields;
}

function knowledgeFields(rng, progress, i, initiativeNames, order, nodes) {
  const deprecated = rng.next() < 0.15;
  const taskIds = order.slice(-50).filter((id) => nodes[id].kind === 'resolvable');
  const scope = {
    domains: rng.next() < 0.6 ? rng.some(DOMAINS, 2) : [],
    initiatives: rng.next() < 0.3 ? rng.some(initiativeNames, 2) : [],
    tags: rng.next() < 0.5 ? rng.some(TAGS, 2) : [],
    node_ids: rng.next() < 0.2 && taskIds.length > 0 ? rng.some(taskIds, 2) : [],
  };
  if (scope.domains.length + scope.initiatives.length + scope.tags.length + scope.node_ids.length === 0) scope.domains = [rng.pick(DOMAINS)];
  const fields = {
    status: deprecated ? 'deprecated' : 'active',
    knowledge_type: rng.pick(['pitfall', 'convention', 'howto', 'decision']),
    mitigation: `Mitigation: ${sentence(rng, 10)}`,
    scope,
  };
  if (deprecated) Object.assign(fields, { deprecation_reason: 'outdated', deprecated_at: at(10 + i * 3 + 90), deprecated_by: rng.pick(AGENTS) });
  return fields;
}

/** Chains (the previous node) and fan-in (several from a window behind), forward only. */
function addBlockers(rng, node, i, order, nodes, edges) {
  const window = order.slice(Math.max(0, i - 40), i).filter((id) => nodes[id].kind === 'resolvable');
  if (window.length === 0) return;
  const roll = rng.next();
  const count = roll < 0.3 ? 0 : roll < 0.75 ? 1 : roll < 0.92 ? 2 + rng.int(2) : 4 + rng.int(5);
  const blockers = new Set(count > 0 && rng.next() < 0.5 ? [window[window.length - 1]] : []);
  while (blockers.size < Math.min(count, window.length)) blockers.add(rng.pick(window));
  for (const from of blockers) edges.push({ from, to: node.id, type: 'BLOCKS' });
}

/** About one gate in ten is superseded by a later gate, which takes over its BLOCKS edges. */
function supersedeGates(rng, nodes, edges) {
  const gates = Object.values(nodes).filter((node) => node.subkind === 'gate');
  for (let k = 0; k + 1 < gates.length; k++) {
    const old = gates[k];
    if (old.status !== 'resolved' && old.status !== 'open') continue;
    if (rng.next() >= 0.1) continue;
    const successor = gates[k + 1 + rng.int(Math.min(5, gates.length - k - 1))];
    if (successor.status === 'superseded') continue;
    old.status = 'superseded';
    old.revision += 1;
    edges.push({ from: successor.id, to: old.id, type: 'SUPERSEDES' });
    // As the product does (creation.ts), the old gate's blockers now block its successor; the
    // successor comes later in creation order, so the moved edges still point forward.
    const blocksSuccessor = new Set(edges.filter((edge) => edge.type === 'BLOCKS' && edge.to === successor.id).map((edge) => edge.from));
    for (let e = edges.length - 1; e >= 0; e--) {
      const edge = edges[e];
      if (edge.type !== 'BLOCKS' || edge.to !== old.id) continue;
      if (blocksSuccessor.has(edge.from)) edges.splice(e, 1);
      else {
        edge.to = successor.id;
        blocksSuccessor.add(edge.from);
      }
    }
  }
}

/**
 * Tasks the timed mutations consume, one per run: ready ones for `take`, ones claimed by the
 * worker for `submit`, submitted ones for `accept` (each blocking one open task, so accepting it
 * makes that task newly ready).
 */
function addPools(tpl, nodes, edges, order, poolSize, common, offset) {
  const done = order.find((id) => nodes[id].status === 'done');
  const pools = { take: [], submit: [], accept: [] };
  let i = offset;
  const add = (id, fields) => {
    const node = { ...tpl.task, ...common(i++, id), acceptance: 'Bench acceptance', ...fields };
    nodes[id] = node;
    order.push(id);
    return node;
  };
  for (let k = 0; k < poolSize; k++) {
    const n = String(k).padStart(4, '0');
    add(`T-bench-take-${n}`, { status: 'open' });
    edges.push({ from: done, to: `T-bench-take-${n}`, type: 'BLOCKS' });
    add(`T-bench-submit-${n}`, { status: 'in_progress', claim: { by: WORKER, at: at(1) } });
    add(`T-bench-accept-${n}`, { status: 'submitted', submitted_by: WORKER, submitted_at: at(2), note: 'Bench delivery' });
    add(`T-bench-after-${n}-a`, { status: 'open' });
    add(`T-bench-after-${n}-b`, { status: 'open' });
    add(`T-bench-after-${n}-c`, { status: 'open' });
    edges.push({ from: `T-bench-accept-${n}`, to: `T-bench-after-${n}-a`, type: 'BLOCKS' });
    edges.push({ from: `T-bench-accept-${n}`, to: `T-bench-after-${n}-b`, type: 'BLOCKS' });
    edges.push({ from: `T-bench-submit-${n}`, to: `T-bench-after-${n}-c`, type: 'BLOCKS' });
    pools.take.push(`T-bench-take-${n}`);
    pools.submit.push(`T-bench-submit-${n}`);
    pools.accept.push(`T-bench-accept-${n}`);
  }
  return pools;
}

function buildLog(rng, order, count) {
  const log = [];
  for (let revision = 1; revision <= count; revision++) {
    // The first entries create the nodes; the rest is the lifecycle traffic of a working team.
    const creating = revision <= order.length;
    const node = creating ? order[revision - 1] : rng.pick(order);
    const op = creating ? `add-${node[0] === 'T' ? 'task' : node[0] === 'G' ? 'gate' : 'knowledge'}` : rng.pick(LOG_OPS);
    const entry = { revision, at: at(revision / 10), by: rng.pick(AGENTS), op, node };
    if (op === 'add-note') entry.note = `Note on ${node}: ${sentence(rng, 6)}`;
    if (op === 'reject') entry.reason = sentence(rng, 6);
    log.push(entry);
  }
  return log;
}

/**
 * Nodes the read commands look at: a blocked task with several blockers (its context is the
 * large-answer case: it matches knowledge by its random domain, tags and initiative), a search
 * word, and a knowledge id (one match).
 */
function pickSamples(rng, nodes, edges) {
  const blockerCount = new Map();
  for (const edge of edges) if (edge.type === 'BLOCKS') blockerCount.set(edge.to, (blockerCount.get(edge.to) ?? 0) + 1);
  const candidates = Object.values(nodes).filter((node) => node.subkind === 'task' && node.status === 'open' && (blockerCount.get(node.id) ?? 0) >= 3);
  const task = candidates[rng.int(candidates.length)] ?? Object.values(nodes).find((node) => node.subkind === 'task');
  // A knowledge id matches that item alone (ids have one width, and no other field holds one): a one-match search.
  const knowledge = Object.values(nodes).filter((node) => node.kind === 'knowledge');
  return { task: task.id, query: 'retry', knowledge: knowledge[Math.floor(knowledge.length / 2)]?.id ?? 'K-none' };
}

/** The store of the build at `root` (a checkout built with npm run build): what writes its files. */
export function storeOf(root) {
  const required = createRequire(path.join(root, 'package.json'));
  const { FsProjectStore: Store } = required('./build/adapters/fs-project-store.js');
  const { stateDirectoryLock: lockOf } = required('./build/adapters/flock-project-lock.js');
  return (projectId, stateDir) => new Store(projectId, stateDir, lockOf(stateDir));
}

const thisStore = (projectId, stateDir) => new FsProjectStore(projectId, stateDir, stateDirectoryLock(stateDir));

/** A checkout (`dir`/checkout with .taskdag.json) and its state in `dir`/home, as the store writes it. */
async function storeProject(dir, projectId, state, store = thisStore) {
  const checkout = path.join(dir, 'checkout');
  const home = path.join(dir, 'home');
  mkdirSync(checkout, { recursive: true });
  writeFileSync(path.join(checkout, '.taskdag.json'), JSON.stringify({ project_id: projectId }, null, 2) + '\n');
  const stateDir = path.join(home, 'projects', projectId);
  await store(projectId, stateDir).replace(state);
  return { checkout, env: { HOME: home, TASKDAG_HOME: home }, projectId, stateDir };
}

/**
 * Writes a project to `dir` (checkout/ with .taskdag.json, home/ as TASKDAG_HOME) and returns
 * what the bench needs to drive it. `store` (`storeOf`) writes it with another build's store: the
 * same project in the layout that build writes, so that builds compared read the same graph.
 */
export async function writeProject(dir, name, options, store = thisStore) {
  const started = performance.now();
  const { state, pools, sample } = buildState(options);
  const location = await storeProject(dir, `bench-${name}`, state, store);
  const edgesByType = {};
  for (const edge of state.edges) edgesByType[edge.type] = (edgesByType[edge.type] ?? 0) + 1;
  return {
    name,
    ...location,
    initiative: 'init-0',
    nodes: Object.keys(state.nodes).length,
    edges: edgesByType,
    log: state.log.length,
    pools,
    sample,
    generate_ms: Math.round(performance.now() - started),
  };
}

/** Writes a batch file of `count` add-task items (no ids, so every run adds new tasks); returns its path. */
export function writeAddTaskBatch(file, initiative, count) {
  const args = { initiative, title: 'x', body: 'y', acceptance: 'z', blocked_by: [] };
  writeFileSync(file, JSON.stringify({ operations: Array.from({ length: count }, () => ({ op: 'add-task', args })) }));
  return file;
}

/**
 * The workload shared with Taskwarrior: `count` tasks, the first 40% done, each depending on up
 * to three of the 40 tasks before it. Both tools get the same plan.
 */
export function sharedWorkload(count, seed = 7) {
  const rng = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const deps = new Set();
    const wanted = i === 0 ? 0 : rng.int(4);
    while (deps.size < Math.min(wanted, i)) deps.add(i - 1 - rng.int(Math.min(40, i)));
    return { title: `${rng.pick(VERBS)} ${sentence(rng, 4)}`, done: i < count * 0.4, deps: [...deps] };
  });
}

/** The shared workload as a taskdag project: tasks with BLOCKS edges, written by the store. */
export async function writeWorkloadProject(dir, plan) {
  const tpl = templates().task;
  const ids = plan.map((_, i) => `T-${String(i).padStart(5, '0')}`);
  const nodes = {};
  const edges = [];
  plan.forEach((task, i) => {
    const created = at(i);
    nodes[ids[i]] = {
      ...tpl,
      id: ids[i],
      title: task.title,
      initiative: 'shared',
      created_at: created,
      created_by: WORKER,
      updated_at: created,
      acceptance: 'Done when reviewed',
      ...(task.done ? { status: 'done', submitted_by: WORKER, submitted_at: created, done_by: WORKER, done_at: created, accepted_by: REVIEWER, accepted_at: created, note: 'done' } : {}),
    };
    for (const dep of task.deps) edges.push({ from: ids[dep], to: ids[i], type: 'BLOCKS' });
  });
  const log = ids.map((id, i) => ({ revision: i + 1, at: at(i), by: WORKER, op: 'add-task', node: id }));
  const state = { ...emptyGraph(), revision: log.length, initiatives: { shared: { desc: 'Shared workload', created_at: at(0) } }, nodes, edges, log };
  return { name: 'shared-5k', ...(await storeProject(dir, 'bench-shared', state)), initiative: 'shared', nodes: plan.length, log: log.length, pools: {}, sample: { task: ids[ids.length - 1], query: 'retry' } };
}
