import type { Timestamp } from './clock.js';
import type { GraphIndex } from './graph-index.js';
import type { Edge, Graph, NodeId } from './model.js';
import { compareAge } from './node-summary.js';
import { OrderedSet, type Ordered } from './ordered-set.js';
import type { NodeHead, StatusIndex } from './status-index.js';
import { readinessDependents } from './status.js';

/*
 * The order of ready work (beyond the spec; docs/decisions.md, "The best next task"): a task's
 * priority first (0 most urgent .. 4 least; DEFAULT_PRIORITY when it has none), then how much work
 * waits behind it (its critical path: the most unfinished tasks on any chain of BLOCKS edges that
 * starts at it, itself included), then age (the oldest first), then id.
 */

export const MIN_PRIORITY = 0;
export const MAX_PRIORITY = 4;
/** The priority of a task that was given none: the middle of the range, so work can be put before it or after it. */
export const DEFAULT_PRIORITY = 2;

export function isPriority(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_PRIORITY && (value as number) <= MAX_PRIORITY;
}

/** A ready task as the ranking sees it. */
export interface RankedTask {
  id: NodeId;
  /** Its priority, DEFAULT_PRIORITY when it has none of its own. */
  priority: number;
  /** Whether the task carries that priority itself (false: the default). */
  priority_set: boolean;
  /** Unfinished tasks on the longest chain of dependents that starts at it, itself included. */
  critical_path: number;
  created_at: Timestamp;
}

/** The ranking rule: lower priority number first, then the longer critical path, then the older, then by id. */
export function compareRank(a: RankedTask, b: RankedTask): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.critical_path !== b.critical_path) return b.critical_path - a.critical_path;
  return compareAge(a.created_at, a.id, b.created_at, b.id);
}

/** A task in one of these statuses is work no longer waiting to be done: it adds nothing to a chain. */
const FINISHED = new Set(['done', 'archived', 'canceled']);

/**
 * The ready tasks in ranking order, and the critical paths they need, kept current change by
 * change like the StatusIndex beside it (project-state.ts tells both of every change). Built on
 * first use from the heads and the edges (no node is read whole). A critical path is derived only
 * when a ready task needs it, with those of the nodes down its chains: the finished work upstream
 * of the ready tasks, most of a live project, is never walked. After that, a change re-derives
 * the critical paths of the changed nodes and of those upstream whose path it changed, and
 * re-ranks only the tasks whose readiness or path can have moved. So `next` costs what it
 * answers, and a fresh process pays for the open part of the graph alone.
 */
export class ReadyRanking {
  /**
   * The critical paths derived so far; null until first used. A node in it has every node down
   * its chains in it too (a path is derived from its dependents'), so a node missing from it has
   * no ancestor in it either: a change to it moves no path derived so far.
   */
  private paths: Map<NodeId, number> | null = null;
  private readonly entries = new Map<NodeId, RankedTask>();
  private readonly order = new OrderedSet<RankedTask>(compareRank);
  private readonly changed = new Set<NodeId>();
  /** How many critical paths this ranking has derived (tests count them: a kept ranking derives only what changed). */
  derivations = 0;

  constructor(
    private readonly graph: Graph,
    private readonly edges: GraphIndex,
    private readonly statuses: StatusIndex,
  ) {}

  /** Node `id` was written, or removed. Costs nothing now: what it moves is worked out when the ranking is next read. */
  nodeChanged(id: NodeId): void {
    if (this.paths) this.changed.add(id);
  }

  /** `edge` was added or removed: both ends may have moved (its `from` end gained or lost a chain). */
  edgeChanged(edge: Edge): void {
    this.nodeChanged(edge.from);
    this.nodeChanged(edge.to);
  }

  /** The ready tasks, current, best first. Do not modify it. */
  ranked(): Ordered<RankedTask> {
    this.refresh();
    return this.order;
  }

  /** The ranking of ready task `id`, current; undefined when it is not ready. */
  rankOf(id: NodeId): RankedTask | undefined {
    this.refresh();
    return this.entries.get(id);
  }

  private refresh(): void {
    const heads = this.statuses.all();
    if (!this.paths) {
      this.build(heads);
      return;
    }
    if (this.changed.size === 0) return;
    const moved = new Set<NodeId>();
    for (const id of this.changed) {
      moved.add(id);
      for (const dependent of readinessDependents(this.graph, this.edges, id)) moved.add(dependent);
    }
    for (const id of this.repropagate(heads, this.changed)) moved.add(id);
    this.changed.clear();
    for (const id of moved) this.rerank(heads, id);
  }

  /**
   * Derives the critical paths of `changed` again and, wherever one moved, those of the nodes
   * upstream of it (the blockers whose longest chain runs through it). A node whose path was never
   * derived is passed over: nothing derived so far depends on it. Returns every node whose path moved.
   */
  private repropagate(heads: ReadonlyMap<NodeId, NodeHead>, changed: Iterable<NodeId>): Set<NodeId> {
    const paths = this.paths!;
    const moved = new Set<NodeId>();
    const pending = [...changed];
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      const before = paths.get(id);
      if (before === undefined) continue;
      const after = heads.has(id) ? this.derive(heads, id) : undefined;
      if (after === before) continue;
      if (after === undefined) paths.delete(id);
      else paths.set(id, after);
      moved.add(id);
      for (const edge of this.edges.into(id, 'BLOCKS')) pending.push(edge.from);
    }
    return moved;
  }

  /** `id`'s critical path from its dependents' (derived first where they are not yet). */
  private derive(heads: ReadonlyMap<NodeId, NodeHead>, id: NodeId): number {
    for (const edge of this.edges.outOf(id, 'BLOCKS')) this.pathOf(heads, edge.to);
    return this.fromDependents(heads, id);
  }

  /** `id`'s critical path from its dependents' paths, all derived. */
  private fromDependents(heads: ReadonlyMap<NodeId, NodeHead>, id: NodeId): number {
    this.derivations += 1;
    const head = heads.get(id)!;
    let longest = 0;
    for (const edge of this.edges.outOf(id, 'BLOCKS')) longest = Math.max(longest, this.paths!.get(edge.to) ?? 0);
    return (head.type === 'task' && !FINISHED.has(head.status) ? 1 : 0) + longest;
  }

  /**
   * `start`'s critical path, derived with every path down its chains that is not derived yet:
   * dependents before what they wait on, on a stack rather than by recursion (chains can be long).
   */
  private pathOf(heads: ReadonlyMap<NodeId, NodeHead>, start: NodeId): number {
    const paths = this.paths!;
    const known = paths.get(start);
    if (known !== undefined) return known;
    if (!heads.has(start)) return 0;
    // A node is pushed once to reach its dependents and again, below them, to be derived once they are.
    const reached = new Set<NodeId>();
    const stack: NodeId[] = [start];
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      if (paths.has(id)) continue;
      if (reached.has(id)) {
        paths.set(id, this.fromDependents(heads, id));
        continue;
      }
      reached.add(id);
      stack.push(id);
      for (const edge of this.edges.outOf(id, 'BLOCKS')) if (!paths.has(edge.to) && heads.has(edge.to)) stack.push(edge.to);
    }
    return paths.get(start)!;
  }

  /** Every ready task ranked, with the critical paths that takes. */
  private build(heads: ReadonlyMap<NodeId, NodeHead>): void {
    this.paths = new Map();
    this.entries.clear();
    for (const head of this.statuses.bucket('task', 'ready').inOrder()) {
      const entry = this.entryFor(heads, head);
      this.entries.set(head.id, entry);
      this.order.addUnsorted(entry);
    }
    this.changed.clear();
  }

  /** Puts task `id` where it now ranks, or out of the ranking when it is no longer ready. */
  private rerank(heads: ReadonlyMap<NodeId, NodeHead>, id: NodeId): void {
    const before = this.entries.get(id);
    if (before) {
      this.order.delete(before);
      this.entries.delete(id);
    }
    const head = heads.get(id);
    if (head?.type !== 'task' || head.status !== 'ready') return;
    const entry = this.entryFor(heads, head);
    this.entries.set(id, entry);
    this.order.add(entry);
  }

  private entryFor(heads: ReadonlyMap<NodeId, NodeHead>, head: NodeHead): RankedTask {
    return {
      id: head.id,
      priority: head.priority ?? DEFAULT_PRIORITY,
      priority_set: head.priority !== null,
      critical_path: this.pathOf(heads, head.id),
      created_at: head.created_at,
    };
  }
}
