import { staleClaimAlert, type StaleClaimAlert } from './alerts.js';
import { timestampBefore, type Timestamp } from './clock.js';
import { DomainError } from './errors.js';
import type { GraphView } from './graph-index.js';
import { GATE_STATUSES, KNOWLEDGE_STATUSES, type AgentName, type NodeType } from './model.js';
import { oldest, summarizeAs, type NodeSummary } from './node-summary.js';
import { StatusIndex, type NodeHead } from './status-index.js';

/** The statuses `--status` accepts: every derived task status, and those of gates and knowledge. */
export const STATUS_VALUES = [
  ...new Set(['ready', 'blocked', 'backlog', 'in_progress', 'submitted', 'done', 'archived', 'canceled', ...GATE_STATUSES, ...KNOWLEDGE_STATUSES]),
];

/** Entries listed per group unless `--limit` says otherwise. */
export const DEFAULT_STATUS_LIMIT = 100;

export interface StatusFilters {
  initiative?: string;
  kind?: NodeType;
  status?: string;
  domain?: string;
  claimed_by?: AgentName;
  staleMs: number;
  limit: number;
  all: boolean;
}

const TASK_GROUPS = ['ready', 'in_progress', 'blocked', 'backlog', 'submitted'] as const;
const TASK_GROUPS_ALL = [...TASK_GROUPS, 'done', 'archived', 'canceled'] as const;
const GATE_GROUPS = ['open'] as const;

export interface StatusReport {
  summary: { ready: number; in_progress: number; blocked: number; backlog: number; submitted: number; open_gates: number; active_knowledge: number };
  tasks: Record<string, NodeSummary[]>;
  gates: Record<string, NodeSummary[]>;
  knowledge_count?: number;
  knowledge?: Record<string, NodeSummary[]>;
  alerts: StaleClaimAlert[];
}

/**
 * The project at a glance (spec 4.4 `status`). Filters pick the nodes of every group; `summary`
 * counts what matched before `--limit` cut the lists. The in_progress group is everyone's work
 * unless `--claimed-by` narrows it, and stale-claim alerts cover every claim in the project,
 * narrowed only by `--claimed-by`.
 */
export function statusReport(view: GraphView, now: Timestamp, filters: StatusFilters): StatusReport {
  if (filters.status !== undefined && !STATUS_VALUES.includes(filters.status)) {
    throw new DomainError('INVALID_ARGUMENT', `--status must be one of ${STATUS_VALUES.join(', ')}`, { flag: '--status', value: filters.status, allowed: STATUS_VALUES });
  }
  const groups: Record<NodeType, Map<string, NodeHead[]>> = {
    task: emptyGroups(filters.all ? TASK_GROUPS_ALL : TASK_GROUPS),
    gate: emptyGroups(filters.all ? GATE_STATUSES : GATE_GROUPS),
    // Knowledge is counted by default and listed with --all; both need its items grouped.
    knowledge: emptyGroups(KNOWLEDGE_STATUSES),
  };
  // Counting reads every node's head; only the listed nodes are read whole (see `oldest`).
  const heads = StatusIndex.of(view.graph).all();
  for (const head of heads.values()) {
    if (inScope(head, filters)) groups[head.type].get(head.status)?.push(head);
  }
  const list = (found: NodeHead[]) => oldest(found, filters.limit).map((head) => summarizeAs(view.graph.nodes[head.id]!, head.status));
  const listed = (map: Map<string, NodeHead[]>) => Object.fromEntries([...map].map(([group, found]) => [group, list(found)]));
  const count = (type: NodeType, group: string) => groups[type].get(group)?.length ?? 0;
  const summary = {
    ready: count('task', 'ready'),
    in_progress: count('task', 'in_progress'),
    blocked: count('task', 'blocked'),
    backlog: count('task', 'backlog'),
    submitted: count('task', 'submitted'),
    open_gates: count('gate', 'open'),
    active_knowledge: count('knowledge', 'active'),
  };
  // With --all the knowledge items themselves replace their count (spec 4.4).
  const knowledge = filters.all ? { knowledge: listed(groups.knowledge) } : { knowledge_count: summary.active_knowledge };
  return { summary, tasks: listed(groups.task), gates: listed(groups.gate), ...knowledge, alerts: staleClaims(heads.values(), now, filters) };
}

function emptyGroups(names: readonly string[]): Map<string, NodeHead[]> {
  return new Map(names.map((name) => [name, []]));
}

function inScope(head: NodeHead, filters: StatusFilters): boolean {
  if (filters.initiative !== undefined && head.initiative !== filters.initiative) return false;
  if (filters.domain !== undefined && head.domain !== filters.domain) return false;
  if (filters.kind !== undefined && head.type !== filters.kind) return false;
  if (filters.status !== undefined && head.status !== filters.status) return false;
  if (filters.claimed_by !== undefined && head.status === 'in_progress' && head.type === 'task' && head.claim?.by !== filters.claimed_by) return false;
  return true;
}

/** Every stale claim of the project, oldest first; only `--claimed-by` narrows them. */
function staleClaims(heads: Iterable<NodeHead>, now: Timestamp, filters: StatusFilters): StaleClaimAlert[] {
  const alerts: StaleClaimAlert[] = [];
  // A claim taken after the cutoff is not stale: one string comparison, not two dates parsed, per claim.
  const cutoff = timestampBefore(now, filters.staleMs);
  for (const head of heads) {
    if (head.claim === null || head.claim.at > cutoff || head.type !== 'task') continue;
    if (filters.claimed_by !== undefined && head.claim.by !== filters.claimed_by) continue;
    const alert = staleClaimAlert(head, now, filters.staleMs);
    if (alert) alerts.push(alert);
  }
  return alerts.sort((a, b) => b.age_ms - a.age_ms || (a.node < b.node ? -1 : 1));
}

/** The counts of `status` alone, for the whole project (the board's catalog and snapshot). */
export function statusSummary(view: GraphView, now: Timestamp): StatusReport['summary'] {
  return statusReport(view, now, { staleMs: Number.MAX_SAFE_INTEGER, limit: 1, all: false }).summary;
}
