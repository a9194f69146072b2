import { allNodes, nodeOf } from './node-map.js';
import type { GraphIndex } from './graph-index.js';
import { isGate, isTask, type Graph, type GraphNode, type NodeId, type NodeType, type TaskNode } from './model.js';

/**
 * The version of the rules below that derive a status. Heads saved with a graph (a checkpoint)
 * carry the version that derived them and are derived again under any other: a release that
 * changes what a status derives to, or what a blocked task waits on (domain/blockers.ts, whose
 * answers a checkpoint saves beside the first blocked tasks), bumps it.
 */
export const STATUS_RULES_VERSION = 2;

export type DerivedTaskStatus =
  | 'ready'
  | 'blocked'
  | 'backlog'
  | 'in_progress'
  | 'submitted'
  | 'done'
  | 'archived'
  | 'canceled';

/**
 * Whether a BLOCKS edge from `blockerId` is satisfied (spec 3.2): a task when done or archived,
 * a gate when resolved, a superseded gate when its chain of successors ends in a resolved gate.
 * Knowledge never blocks, so it never satisfies either. `reads`, when given, gets every node the
 * answer was read from (the blocker, and the successors walked).
 */
export function isBlockerSatisfied(graph: Graph, index: GraphIndex, blockerId: NodeId, reads?: Set<NodeId>): boolean {
  // Most blockers are a task or a gate that is not superseded: answered without the walk below,
  // which allocates (every head derived and every blocked task listed asks, so it counts).
  const blocker = nodeOf(graph, blockerId);
  reads?.add(blockerId);
  if (!isGate(blocker) || blocker.status !== 'superseded') return isTask(blocker) ? blocker.status === 'done' || blocker.status === 'archived' : isGate(blocker) && blocker.status === 'resolved';
  // Successors point at the gate they replace (new -SUPERSEDES-> old); any one chain that ends
  // in a resolved gate carries the decision. Chains are walked with a stack, not recursion: a
  // chain can be thousands of gates long.
  const pending = [blockerId];
  const seen = new Set<NodeId>();
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    reads?.add(id);
    const node = nodeOf(graph, id);
    if (isTask(node) && (node.status === 'done' || node.status === 'archived')) return true;
    if (!isGate(node) || seen.has(id)) continue;
    if (node.status === 'resolved') return true;
    seen.add(id);
    if (node.status === 'superseded') for (const edge of index.into(id, 'SUPERSEDES')) pending.push(edge.from);
  }
  return false;
}

/**
 * Whether a node of `type` whose derived status is `status` satisfies a BLOCKS edge from it, as
 * `isBlockerSatisfied` answers (a task's derived status is its stored one once it is done or
 * archived); undefined for a superseded gate, whose answer follows its successors.
 */
export function satisfiesBlocks(type: NodeType, status: string): boolean | undefined {
  if (type === 'gate') return status === 'superseded' ? undefined : status === 'resolved';
  return type === 'task' && (status === 'done' || status === 'archived');
}

/** Blockers of `id` whose BLOCKS edge is not satisfied yet. */
export function unsatisfiedBlockers(graph: Graph, index: GraphIndex, id: NodeId): NodeId[] {
  return index
    .into(id, 'BLOCKS')
    .map((edge) => edge.from)
    .filter((blocker) => !isBlockerSatisfied(graph, index, blocker));
}

/**
 * The status a user sees. Stored states win; an `open` task is `backlog` when kept out of the
 * pool, otherwise `blocked` while any blocker is unsatisfied, otherwise `ready`.
 */
export function derivedTaskStatus(graph: Graph, index: GraphIndex, task: TaskNode): DerivedTaskStatus {
  if (task.status !== 'open') return task.status;
  if (task.backlog) return 'backlog';
  const blocked = index.into(task.id, 'BLOCKS').some((edge) => !isBlockerSatisfied(graph, index, edge.from));
  return blocked ? 'blocked' : 'ready';
}

export function derivedStatus(graph: Graph, index: GraphIndex, node: GraphNode): string {
  return isTask(node) ? derivedTaskStatus(graph, index, node) : node.status;
}

/** Ids of every task whose derived status is `ready`. */
export function readyTaskIds(graph: Graph, index: GraphIndex): Set<NodeId> {
  const ready = new Set<NodeId>();
  for (const node of allNodes(graph)) {
    if (isTask(node) && derivedTaskStatus(graph, index, node) === 'ready') ready.add(node.id);
  }
  return ready;
}

/**
 * The tasks whose readiness can change when node `id` changes: `id` itself, and every task
 * blocked by `id` or by a gate that `id` supersedes, directly or down a chain (a superseded
 * blocker is satisfied through its successors). Readiness reads nothing else.
 */
export function readinessDependents(graph: Graph, index: GraphIndex, id: NodeId): Set<NodeId> {
  const affected = new Set<NodeId>();
  if (isTask(nodeOf(graph, id))) affected.add(id);
  const seen = new Set<NodeId>([id]);
  for (const blocker of seen) {
    for (const edge of index.outOf(blocker, 'BLOCKS')) if (isTask(nodeOf(graph, edge.to))) affected.add(edge.to);
    for (const edge of index.outOf(blocker, 'SUPERSEDES')) seen.add(edge.to);
  }
  return affected;
}

/** Those of `ids` whose derived status is `ready`. */
export function readyAmong(graph: Graph, index: GraphIndex, ids: Iterable<NodeId>): Set<NodeId> {
  const ready = new Set<NodeId>();
  for (const id of ids) {
    const node = nodeOf(graph, id);
    if (isTask(node) && derivedTaskStatus(graph, index, node) === 'ready') ready.add(id);
  }
  return ready;
}
