import { expect } from 'chai';
import { isDeepStrictEqual } from 'node:util';
import { LocalDispatcher, type DispatcherServices } from '../../application/dispatcher.js';
import { GroupCommitDispatcher } from '../../application/group-commit.js';
import type { OperationDispatcher } from '../../application/operation.js';
import { composeServices, fileStores, projectsOnly } from '../../entrypoints/compose.js';
import type { FsProjectStore, FsProjectStoreFactory } from '../../adapters/fs-project-store.js';
import type { AgentName } from '../../domain/model.js';
import { seeded } from './fuzz.js';
import { inMemoryServices } from './services.js';

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (random: Random, p: number) => random() < p;

/** Characters that stress JSON escaping and case folding: quotes, backslashes, controls, Kelvin sign, Turkish İ, sigmas, astral. */
const ALPHABET = ['a', 'b', 'K', 'k', 'I', 'i', 'S', 's', 'x', '1', '0', 'e', '+', '-', '.', ' ', '"', '\\', '\n', '\t', '\u0001', '/', ':', ',', '{', '}', '[', ']', '\u212A', '\u0130', '\u0131', 'Σ', 'σ', 'ς', 'é', 'É', '😀', '\u2028', 'ß', 'ẞ', '<', '&'];
const WORDS = ['alpha', 'Beta', 'GAMMA', 'needle', 'ΣΟΦΙΑ', 'İstanbul', '\u212Aelvin', 'straße', 'e+21', '1e3', 'true', 'null', 'K-1', 'T-2', '":"', '\\u0041', 'a\\b', 'x"y'];
const AGENTS = ['alice', 'bob', 'orchestrator'];
const INITIATIVES = ['core', 'ops'];
const DOMAINS = ['backend', 'front', 'data'];
const TAGS = ['t1', 't2', 'T3', 'urgent', 'İ'];

function text(random: Random, max = 24): string {
  let out = '';
  const length = Math.floor(random() * max);
  for (let at = 0; at < length; at++) out += chance(random, 0.2) ? `${pick(random, WORDS)} ` : pick(random, ALPHABET);
  return out;
}

function list(random: Random, items: readonly string[], max = 3): string[] {
  const out = new Set<string>();
  const count = Math.floor(random() * (max + 1));
  for (let at = 0; at < count; at++) out.add(pick(random, items));
  return [...out];
}

function meta(random: Random): Record<string, unknown> {
  if (chance(random, 0.5)) return {};
  const values = [1, 1e21, -0.5, true, null, text(random, 8), [text(random, 4), 2], { inner: text(random, 6) }];
  return { [text(random, 6) || 'k']: pick(random, values), n: pick(random, values) };
}

/** One step of a random session: an operation, its arguments and its agent. */
export interface Step {
  operation: string;
  args: Record<string, unknown>;
  agent: AgentName | null;
}

/**
 * Random operations over a project whose ids are drawn from a small pool, so that most steps hit
 * existing nodes and many fail (errors are compared too): creations with every field, the
 * lifecycle, edges, notes long enough to force checkpoint rewrites, and every read.
 */
export class StepSource {
  private readonly random: Random;
  private created = 0;
  readonly ids: string[] = [];
  readonly texts: string[] = [];
  /** The id the last step would create, kept once the step succeeds. */
  private pending: string | null = null;
  /** Tasks last taken or submitted, the likelier targets of submit, accept, reject and release. */
  private readonly moving: string[] = [];
  private last: Step | null = null;

  /** `hugeNote`: the length of the longest notes (a hot store writes a checkpoint only past 4 MiB of ledger). */
  constructor(
    seed: number,
    private readonly hugeNote = 4000,
  ) {
    this.random = seeded(seed);
  }

  next(): Step {
    const random = this.random;
    const roll = random();
    this.pending = null;
    this.last = roll < 0.3 || this.ids.length < 6 ? this.creation() : roll < 0.6 ? this.mutation() : this.read();
    return this.last;
  }

  /** The last step succeeded: the node it created is there to be used. */
  settled(ok: boolean): void {
    if (ok && this.pending) this.ids.push(this.pending);
    if (ok && ['take', 'submit', 'reject'].includes(this.last?.operation ?? '')) this.moving.push(String(this.last!.args.id));
    if (this.moving.length > 8) this.moving.shift();
    this.pending = null;
  }

  /** A node of `prefix` (T-, G-, K-), one on the move half the time for tasks. */
  private of(prefix: string): string {
    if (prefix === 'T-' && this.moving.length > 0 && chance(this.random, 0.5)) return pick(this.random, this.moving);
    const matching = this.ids.filter((id) => id.startsWith(prefix));
    return matching.length === 0 || chance(this.random, 0.1) ? this.id() : pick(this.random, matching);
  }

  private id(): string {
    return chance(this.random, 0.05) ? pick(this.random, ['T-none', 'K-none', 'G-none']) : pick(this.random, this.ids);
  }

  private remember(value: string): string {
    if (value.length > 0) this.texts.push(value);
    return value;
  }

  private creation(): Step {
    const random = this.random;
    const kind = pick(random, ['task', 'task', 'gate', 'knowledge']);
    const id = `${kind === 'task' ? 'T' : kind === 'gate' ? 'G' : 'K'}-${++this.created}`;
    this.pending = id;
    const common = {
      id,
      initiative: pick(random, INITIATIVES),
      title: this.remember(text(random) || 'title'),
      body: this.remember(text(random, 60)),
      ...(chance(random, 0.6) ? { domain: pick(random, DOMAINS) } : {}),
      ...(chance(random, 0.6) ? { tags: list(random, TAGS) } : {}),
      ...(chance(random, 0.3) ? { refs: [this.remember(text(random, 10) || 'ref')] } : {}),
      meta: meta(random),
    };
    const agent = pick(random, AGENTS);
    const others = this.ids;
    if (kind === 'task') {
      const blockers = chance(random, 0.5) ? list(random, others, 2) : [];
      return { operation: 'add-task', args: { ...common, acceptance: 'ok', blocked_by: blockers, ...(chance(random, 0.3) ? { priority: Math.floor(random() * 5) } : {}) }, agent };
    }
    if (kind === 'gate') {
      const supersedes = chance(random, 0.2) && others.length > 0 ? { supersedes: pick(random, others) } : {};
      return { operation: 'add-gate', args: { ...common, purpose: 'decide', ...(chance(random, 0.3) ? { blocked_by: list(random, others, 2) } : {}), ...supersedes }, agent };
    }
    const supersedes = chance(random, 0.2) && others.length > 0 ? { supersedes: pick(random, others) } : {};
    return {
      operation: 'add-knowledge',
      args: {
        ...common,
        mitigation: this.remember(text(random, 20)),
        scope_domains: list(random, DOMAINS, 1),
        scope_tags: list(random, TAGS, 2),
        ...(chance(random, 0.3) ? { scope_initiatives: [pick(random, INITIATIVES)] } : {}),
        ...(chance(random, 0.3) ? { scope_node_ids: list(random, others, 2) } : {}),
        ...supersedes,
      },
      agent,
    };
  }

  private mutation(): Step {
    const random = this.random;
    // Mostly one agent, so that what it takes it also submits.
    const agent = chance(random, 0.7) ? 'alice' : pick(random, AGENTS);
    const id = this.id();
    switch (pick(random, ['take', 'take', 'submit', 'accept', 'reject', 'release', 'resolve', 'update', 'add-edge', 'remove-edge', 'add-note', 'add-note', 'cancel', 'reopen', 'deprecate-knowledge', 'next'])) {
      case 'take':
        return { operation: 'take', args: { id: this.of('T-') }, agent };
      case 'submit':
        return { operation: 'submit', args: { id: this.of('T-'), note: text(random) || 'done' }, agent };
      case 'accept':
        return { operation: 'accept', args: { id: this.of('T-') }, agent };
      case 'reject':
        return { operation: 'reject', args: { id: this.of('T-'), reason: text(random) || 'no' }, agent };
      case 'release':
        return { operation: 'release', args: { id: this.of('T-') }, agent };
      case 'resolve':
        return { operation: 'resolve', args: { id: this.of('G-'), choice: text(random) || 'yes', rationale: 'because' }, agent };
      case 'cancel':
        return { operation: 'cancel', args: { id, reason: 'gone' }, agent: 'orchestrator' };
      case 'reopen':
        return { operation: 'reopen', args: { id, reason: 'again' }, agent: 'orchestrator' };
      case 'deprecate-knowledge':
        return { operation: 'deprecate-knowledge', args: { id: this.of('K-'), reason: 'old' }, agent };
      case 'next':
        return { operation: 'next', args: chance(random, 0.5) ? { domain: pick(random, DOMAINS) } : {}, agent };
      case 'add-edge':
      case 'remove-edge':
        return { operation: pick(random, ['add-edge', 'add-edge', 'remove-edge']), args: { from: this.id(), to: id, type: pick(random, ['BLOCKS', 'BLOCKS', 'SUPERSEDES', 'DERIVED_FROM']) }, agent };
      case 'add-note':
        // Long notes fill the ledger tail so that commits write new checkpoints every few dozen steps.
        return { operation: 'add-note', args: { id, text: (text(random) || 'note') + (chance(random, 0.3) ? 'n'.repeat(this.hugeNote) : '') }, agent };
      default: {
        const fields: Record<string, unknown> = {};
        if (chance(random, 0.4)) fields.title = this.remember(text(random) || 'retitled');
        if (chance(random, 0.3)) fields.body = this.remember(text(random, 40));
        if (chance(random, 0.3)) fields.domain = chance(random, 0.3) ? '' : pick(random, DOMAINS);
        if (chance(random, 0.3)) fields.tags = list(random, TAGS);
        if (chance(random, 0.2)) fields.backlog = chance(random, 0.5);
        if (chance(random, 0.2)) fields.priority = Math.floor(random() * 5);
        if (chance(random, 0.2)) fields.meta = meta(random);
        if (chance(random, 0.2)) fields.mitigation = this.remember(text(random, 20));
        if (chance(random, 0.2)) fields.scope_tags = list(random, TAGS, 2);
        return { operation: 'update', args: { id, ...fields }, agent };
      }
    }
  }

  /** A query: a slice of some stored text (case changed at random), or a character that folds or escapes. */
  query(): string {
    const random = this.random;
    if (chance(random, 0.3) || this.texts.length === 0) return pick(random, [...WORDS, ...ALPHABET.filter((c) => c.trim() !== ''), 'k', 'ı', 'i̇', 'ss', 'SS', 'e', '1', 'n'.repeat(5), '\\n', '\\"', '{"', 'K-', '-1']);
    const source = pick(random, this.texts);
    const start = Math.floor(random() * source.length);
    const slice = source.slice(start, start + 1 + Math.floor(random() * 8));
    const cased = chance(random, 0.3) ? slice.toUpperCase() : chance(random, 0.3) ? slice.toLowerCase() : slice;
    return cased.trim() === '' ? 'a' : cased;
  }

  read(): Step {
    const random = this.random;
    const id = this.id();
    switch (pick(random, ['status', 'status', 'context', 'search', 'search', 'show', 'history', 'state'])) {
      case 'status': {
        const args: Record<string, unknown> = {};
        if (chance(random, 0.5)) args.limit = 1 + Math.floor(random() * 5);
        if (chance(random, 0.2)) args.initiative = pick(random, INITIATIVES);
        if (chance(random, 0.2)) args.kind = pick(random, ['task', 'gate', 'knowledge']);
        if (chance(random, 0.2)) args.status = pick(random, ['ready', 'blocked', 'in_progress', 'submitted', 'done', 'open', 'backlog', 'active', 'deprecated', 'canceled', 'superseded', 'resolved']);
        if (chance(random, 0.2)) args.domain = pick(random, DOMAINS);
        if (chance(random, 0.2)) args.claimed_by = pick(random, AGENTS);
        if (chance(random, 0.2)) args.stale_ms = Math.floor(random() * 10_000);
        if (chance(random, 0.3)) args.all = true;
        if (chance(random, 0.2)) args.ranked = true;
        return { operation: 'status', args, agent: null };
      }
      case 'context':
        return { operation: 'context', args: { id }, agent: pick(random, [null, ...AGENTS]) };
      case 'search':
        return { operation: 'search', args: { query: this.query(), ...(chance(random, 0.4) ? { all: true } : {}) }, agent: null };
      case 'show':
        return { operation: 'show', args: { id }, agent: null };
      case 'history':
        return { operation: 'history', args: { id, ...(chance(random, 0.4) ? { limit: 1 + Math.floor(random() * 3) } : {}) }, agent: null };
      default:
        return { operation: 'state', args: {}, agent: null };
    }
  }
}

/** What a dispatch gives: its result, or its error's code, message and details. */
function outcome(dispatcher: OperationDispatcher, project: string, step: Step): Promise<unknown> {
  return outcomeOf(() => dispatcher.dispatch({ project, ...step }));
}

async function outcomeOf(dispatch: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await dispatch() };
  } catch (error) {
    const { code, message, details } = error as { code?: string; message: string; details?: unknown };
    return { error: { code, message, details } };
  }
}

/** `value` without the age and message of its stale-claim alerts (they follow the clock to the millisecond). */
function withoutAges(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAges);
  if (typeof value !== 'object' || value === null) return value;
  const stale = (value as { kind?: unknown }).kind === 'STALE_CLAIM';
  return Object.fromEntries(Object.entries(value).filter(([key]) => !stale || (key !== 'age_ms' && key !== 'message')).map(([key, item]) => [key, withoutAges(item)]));
}

/**
 * Two local dispatchers on one clock: (a) the file store as the command line reads it (lazily,
 * a checkpoint plus a ledger tail), (b) a store in memory that holds the same state as plain
 * data. Every step runs on both; results and then whole states must be equal.
 */
export class DifferentialPair {
  private now: number;
  private suffix = 0;
  readonly file: OperationDispatcher;
  readonly plain: LocalDispatcher;
  private readonly plainServices: ReturnType<typeof inMemoryServices>;
  readonly stores: FsProjectStoreFactory;
  /** How each operation came out (`<operation> ok` or `<operation> <code>`): what a session exercised. */
  readonly tally = new Map<string, number>();

  /** `start`: the clock's first time (each step moves it on by up to 13 s). */
  /** `hot`: the file store as a server keeps it (in memory, nodes unread kept as bytes), behind the server's group commit. */
  constructor(
    home: string,
    readonly project: string,
    start = Date.parse('2030-01-01T00:00:00.000Z'),
    private readonly hot = false,
  ) {
    this.now = start;
    const clock = { now: () => new Date(this.now).toISOString() };
    const ids = { nodeSuffix: () => (this.suffix++).toString(16).padStart(8, '0'), projectId: () => project };
    this.stores = fileStores(home, { hot, warn: (warning) => expect.fail(`store warning: ${warning.message}`) });
    const fileServices: DispatcherServices = { ...composeServices(this.stores, projectsOnly(home, 'the differential test')), clock, ids };
    this.plainServices = { ...inMemoryServices(), clock, ids };
    this.file = hot ? new GroupCommitDispatcher(fileServices) : new LocalDispatcher(fileServices);
    this.plain = new LocalDispatcher(this.plainServices);
  }

  async init(): Promise<void> {
    // init answers with where the state is, which differs by store.
    await this.file.dispatch({ project: this.project, operation: 'init', args: {}, agent: 'alice' });
    await this.plain.dispatch({ project: 'memory', operation: 'init', args: {}, agent: 'alice' });
    for (const name of INITIATIVES) await this.step({ operation: 'add-initiative', args: { name }, agent: 'alice' }, 'init');
  }

  /** Runs `step` on both, moving the clock first; fails naming `label` when the answers or the states differ. */
  async step(step: Step, label: string): Promise<boolean> {
    this.now += 1 + Math.floor(((this.suffix * 7919) % 997) * 13);
    const start = this.suffix;
    const fromFile = await outcome(this.file, this.project, step);
    this.suffix = start;
    const fromPlain = await outcome(this.plain, 'memory', step);
    expect(fromFile, `${label}: ${JSON.stringify(step)}`).to.deep.equal(fromPlain);
    // `status` prints as the whole-graph derivation does, field order and all (issue 28: its read path reads saved buckets).
    if (step.operation === 'status') expect(JSON.stringify(fromFile), `${label}: ${JSON.stringify(step)}`).to.equal(JSON.stringify(fromPlain));
    const { error, ok } = fromFile as { error?: { code: string }; ok?: { count?: number } };
    const key = `${step.operation} ${error?.code ?? (step.operation === 'search' && ok?.count ? 'hits' : 'ok')}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    return error === undefined;
  }

  /**
   * Runs read `step` on `other` (a dispatcher over the same files, e.g. the built binary, on the
   * system clock) and on the plain state at the time it was asked or at the time it answered: the
   * answers must be equal to one of them but for how long stale claims have been held, which
   * follows the clock. (The other side reads the clock somewhere in between: a claim that turns
   * stale meanwhile is an alert in one answer and not in the other, on a loaded machine.)
   */
  async compareRead(other: { dispatch(request: { project: string; operation: string; args: Record<string, unknown>; agent: AgentName | null }): Promise<unknown> }, step: Step, label: string): Promise<void> {
    const asked = Date.now();
    const fromOther = withoutAges(await outcomeOf(() => other.dispatch({ project: this.project, ...step })));
    const answered = Date.now();
    const plainAt = async (now: number) => {
      this.now = now;
      return withoutAges(await outcomeOf(() => this.plain.dispatch({ project: 'memory', ...step })));
    };
    const whenAsked = await plainAt(asked);
    if (isDeepStrictEqual(fromOther, whenAsked)) {
      this.now = answered;
      return;
    }
    expect(fromOther, `${label}: ${JSON.stringify(step)}`).to.deep.equal(await plainAt(answered));
  }

  /** Both states, whole: the file store's as `inspect` reads it, the memory store's. */
  async assertSameState(label: string): Promise<void> {
    const file = await this.stores.open(this.project).inspect();
    const plain = await this.plainServices.stores.store.inspect();
    expect(file.kind, label).to.equal('valid');
    expect(file.kind === 'valid' && file.state, label).to.deep.equal(plain.kind === 'valid' && plain.state);
  }

  /**
   * `count` tasks of `source`'s making in one batch (one commit, one record past the checkpoint
   * threshold: the next commit writes a checkpoint whose status buckets span several pages).
   */
  async bulk(source: StepSource, count: number): Promise<void> {
    const operations: unknown[] = [];
    for (let at = 0; at < count; at++) {
      let step = source.next();
      while (step.operation !== 'add-task') step = source.next();
      operations.push({ op: 'add-task', args: { ...step.args, blocked_by: [] } });
      source.settled(true);
    }
    await this.step({ operation: 'batch', args: { operations }, agent: 'alice' }, 'bulk');
    await this.assertSameState('bulk');
  }

  /** A step of `source`, and, after a mutation, the states compared. */
  async run(source: StepSource, steps: number, label: string, afterStep?: (step: number) => Promise<void>): Promise<void> {
    for (let at = 0; at < steps; at++) {
      const step = source.next();
      source.settled(await this.step(step, `${label} step ${at}`));
      if (!['status', 'context', 'search', 'show', 'history', 'state'].includes(step.operation)) await this.assertSameState(`${label} step ${at} (${step.operation})`);
      // Every few steps, the reads again on the state as it is: several queries each.
      if (at % 5 === 4) for (let read = 0; read < 4; read++) await this.step(source.read(), `${label} step ${at} read ${read}`);
      // A hot store's checkpoint written in the background is renamed in, and the state read on from it.
      if (this.hot) await (this.stores.open(this.project) as FsProjectStore).checkpointed();
      await afterStep?.(at);
    }
  }
}
