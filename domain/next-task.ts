import { nodeOf } from './node-map.js';
import type { GraphDraft } from './draft.js';
import { take } from './lifecycle.js';
import type { Graph, NodeId, TaskNode } from './model.js';
import { isProjectState } from './project-state.js';
import type { RankedTask } from './ranking.js';

/** What `next` may be narrowed to: one initiative, one domain, tasks carrying every one of some tags. */
export interface NextFilters {
  initiative?: string;
  domain?: string;
  tags?: string[];
}

/** Why `next` chose its task: the ranking rule and where the task stood by it. */
export interface NextReason {
  rule: string;
  priority: number;
  /** false: the task has no priority of its own and ranks at the default. */
  priority_set: boolean;
  critical_path: number;
  created_at: string;
  /** Its place among every ready task of the project (1: the best). */
  rank: number;
  /** Ready tasks in the project when it was chosen (those ranked before it were left out by the filters). */
  ready: number;
  message: string;
}

export const RANKING_RULE = 'priority (0 first), then the longest chain of unfinished work behind it, then the oldest';

/**
 * Claims the best ready task that the filters let through (domain/ranking.ts), with a lease of
 * `leaseMs` when given, and says why it was the one; null when no ready task matches. Decided in
 * the same transaction as the claim, so callers racing each other each get a different task.
 * Reads the ranking from the top down to the first match: it costs what it passes over.
 */
export function nextTask(draft: GraphDraft, filters: NextFilters, leaseMs: number | undefined): { node: TaskNode; why: NextReason } | null {
  const { order, position } = bestMatch(draft, filters);
  if (position < 0) return null;
  const chosen = order[position]!;
  const why = reasonFor(chosen, position, order.length);
  const { node } = take(draft, chosen.id, leaseMs);
  return { node, why };
}

/**
 * Ranks `graph`'s ready tasks ahead of a `nextTask` on it: a project state keeps the ranking from
 * then on, change by change, so a `nextTask` after more changes ranks only what they moved. (A
 * fresh ranking derives the critical path of every open task down the chains; done on the state
 * loaded before the lock, the lock holder does not pay for it.)
 */
export function rankReadyTasks(graph: Graph): void {
  if (isProjectState(graph)) graph.indexes.ranking.ranked();
}

/** Whether `nextTask` would find a task now: a look that claims nothing (`next --wait` between commits). */
export function hasReadyMatch(draft: GraphDraft, filters: NextFilters): boolean {
  return bestMatch(draft, filters).position >= 0;
}

/** The ready tasks in ranked order, and the place of the first the filters let through (-1: none). */
function bestMatch(draft: GraphDraft, filters: NextFilters): { order: readonly RankedTask[]; position: number } {
  const heads = draft.statuses.all();
  const order = draft.ranking.ranked().inOrder();
  return { order, position: order.findIndex((entry) => matches(draft, heads.get(entry.id)!, filters)) };
}

function matches(draft: GraphDraft, head: { id: NodeId; initiative: string; domain: string | null }, filters: NextFilters): boolean {
  if (filters.initiative !== undefined && head.initiative !== filters.initiative) return false;
  if (filters.domain !== undefined && head.domain !== filters.domain) return false;
  if (filters.tags === undefined || filters.tags.length === 0) return true;
  // Tags are not in the heads: only the tasks the other filters let through are read whole.
  const tags = nodeOf(draft.graph, head.id)!.tags;
  return filters.tags.every((tag) => tags.includes(tag));
}

function reasonFor(chosen: RankedTask, position: number, ready: number): NextReason {
  const priority = chosen.priority_set ? `priority ${chosen.priority}` : `priority ${chosen.priority} (the default)`;
  const behind = chosen.critical_path === 1 ? 'no unfinished work waits on it' : `it heads a chain of ${chosen.critical_path} unfinished tasks`;
  return {
    rule: RANKING_RULE,
    priority: chosen.priority,
    priority_set: chosen.priority_set,
    critical_path: chosen.critical_path,
    created_at: chosen.created_at,
    rank: position + 1,
    ready,
    message: `${chosen.id} ranks ${position + 1} of ${ready} ready: ${priority}; ${behind}; created ${chosen.created_at}`,
  };
}
