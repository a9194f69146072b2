import { nodeOf } from './node-map.js';
import { staleClaimAlertAged, staleClaimAlertsJson, type StaleClaimAlert } from './alerts.js';
import { timestampBefore, type Timestamp } from './clock.js';
import { BlockerFinder } from './blockers.js';
import { DomainError } from './errors.js';
import type { GraphView } from './graph-view.js';
import { JsonText } from './json-text.js';
import { GATE_STATUSES, KNOWLEDGE_STATUSES, type AgentName, type NodeType } from './model.js';
import { summarizeAs, summarizeListed, type NodeSummary } from './node-summary.js';
import type { ClaimedTask, NodeHead, StatusIndex } from './status-index.js';

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
  /** List ready tasks in the order `next` takes them (domain/ranking.ts), each with its ranking, instead of oldest first. */
  ranked?: boolean;
}

const TASK_GROUPS = ['ready', 'in_progress', 'blocked', 'backlog', 'submitted'] as const;
const TASK_GROUPS_ALL = [...TASK_GROUPS, 'done', 'archived', 'canceled'] as const;
const GATE_GROUPS = ['open'] as const;

/** The status buckets (`<type> <status>`) whose nodes `status` lists without `--all`: what a save lists beside their heads. */
export const LISTED_BY_DEFAULT: ReadonlySet<string> = new Set([...TASK_GROUPS.map((status) => `task ${status}`), ...GATE_GROUPS.map((status) => `gate ${status}`)]);

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
  return { ...listedGroups(planGroups(view, filters)), alerts: staleClaims(view.statuses.claimedInOrder(), now, filters) };
}

/**
 * `statusReport` as JSON text (the same bytes `JSON.stringify` writes of it), for a caller that
 * prints it at once: the stale-claim alerts, global and so the bulk of a large project's answer
 * (1,261 alerts, 283 KB at 50k nodes), are written from the saved claims as they were written,
 * not made into objects and printed again: from the section's bytes while the ledger tail changed
 * no head, from its entries otherwise. The report itself where the claims cannot be read so.
 */
export function statusAnswer(view: GraphView, now: Timestamp, filters: StatusFilters): StatusReport | JsonText {
  const plan = planGroups(view, filters);
  const cutoff = timestampBefore(now, filters.staleMs);
  const nowMillis = Date.parse(now);
  // `alerts` is the report's last member: the rest's text, then it.
  const written = view.statuses.staleClaimAlertsAsWritten(cutoff, nowMillis, filters.claimed_by);
  if (written) return new JsonText(`${listedJson(plan)},"alerts":`, written, '}');
  const claims = view.statuses.claimsAsWritten();
  if (claims === null) return { ...listedGroups(plan), alerts: staleClaims(view.statuses.claimedInOrder(), now, filters) };
  return new JsonText(`${listedJson(plan)},"alerts":${staleClaimAlertsJson(claims, cutoff, nowMillis, filters.claimed_by)}}`);
}

/**
 * The report without its alerts as JSON text, its closing brace left off: `JSON.stringify` of
 * `listedGroups`, but a group whose first heads saved pages hold as printed (`GroupHead.printed`)
 * is written from them, none of its heads read or summarized.
 */
function listedJson(plan: GroupPlan): string {
  const entryText = (head: NodeHead) => JSON.stringify(plan.entry(head));
  const group = (map: Map<string, Matched>) => `{${[...map].map(([name, found]) => `${JSON.stringify(name)}:[${found.printed?.(plan.filters.limit, entryText) ?? JSON.stringify(plan.list(found)).slice(1, -1)}]`).join(',')}}`;
  const { summary, groups, filters } = plan;
  const knowledge = filters.all ? `"knowledge":${group(groups.knowledge)}` : `"knowledge_count":${summary.active_knowledge}`;
  return `{"summary":${JSON.stringify(summary)},"tasks":${group(groups.task)},"gates":${group(groups.gate)},${knowledge}`;
}

/** The report without its alerts: the summary and the groups, in the order it prints them. */
function listedGroups(plan: GroupPlan): Omit<StatusReport, 'alerts'> {
  const { summary, groups, filters, list } = plan;
  const listed = (map: Map<string, Matched>) => Object.fromEntries([...map].map(([group, found]) => [group, list(found)]));
  // With --all the knowledge items themselves replace their count (spec 4.4).
  const knowledge = filters.all ? { knowledge: listed(groups.knowledge) } : { knowledge_count: summary.active_knowledge };
  return { summary, tasks: listed(groups.task), gates: listed(groups.gate), ...knowledge };
}

/** What `status` lists, before any head is listed: each group's count and how to list its first heads. */
interface GroupPlan {
  filters: StatusFilters;
  summary: StatusReport['summary'];
  groups: Record<NodeType, Map<string, Matched>>;
  /** A group's first `--limit` heads, summarized. */
  list(found: Matched): NodeSummary[];
  /** One head as a group lists it. */
  entry(head: NodeHead): NodeSummary;
}

function planGroups(view: GraphView, filters: StatusFilters): GroupPlan {
  if (filters.status !== undefined && !STATUS_VALUES.includes(filters.status)) {
    throw new DomainError('INVALID_ARGUMENT', `--status must be one of ${STATUS_VALUES.join(', ')}`, { flag: '--status', value: filters.status, allowed: STATUS_VALUES });
  }
  const index = view.statuses;
  const groups: Record<NodeType, Map<string, Matched>> = {
    task: matchedGroups(index, 'task', filters.all ? TASK_GROUPS_ALL : TASK_GROUPS, filters),
    gate: matchedGroups(index, 'gate', filters.all ? GATE_STATUSES : GATE_GROUPS, filters),
    // Knowledge is counted by default and listed with --all; both need its items grouped.
    knowledge: matchedGroups(index, 'knowledge', KNOWLEDGE_STATUSES, filters),
  };
  if (filters.ranked) groups.task.set('ready', rankedReady(view, groups.task.get('ready')!, filters));
  // Only the listed nodes are read whole.
  // A blocked task names what it waits on; one finder shares the chains the listed tasks have in common.
  const blockers = new BlockerFinder(view);
  const entry = (head: NodeHead): NodeSummary => {
    // A head from a saved page may carry what the summary needs: the node is then not read.
    // Each summary is made here, so the fields that follow are set on it, not spread into a copy.
    const listed = head.listing ? summarizeListed(head, head.listing) : summarizeAs(nodeOf(view.graph, head.id)!, head.status);
    // A saved head may carry its blockers too, kept only while what they were read from is unchanged.
    if (head.status === 'blocked') listed.blockers = head.blockers?.blockers ?? blockers.of(head.id, head.type);
    const rank = filters.ranked && head.status === 'ready' ? view.ranking.rankOf(head.id) : undefined;
    if (rank) listed.ranking = { priority: rank.priority, critical_path: rank.critical_path };
    return listed;
  };
  const list = ({ heads }: Matched) => heads().slice(0, filters.limit).map(entry);
  const count = (type: NodeType, group: string) => groups[type].get(group)?.count ?? 0;
  const summary = {
    ready: count('task', 'ready'),
    in_progress: count('task', 'in_progress'),
    blocked: count('task', 'blocked'),
    backlog: count('task', 'backlog'),
    submitted: count('task', 'submitted'),
    open_gates: count('gate', 'open'),
    active_knowledge: count('knowledge', 'active'),
  };
  return { filters, summary, groups, list, entry };
}

/** How many heads of one group the filters keep, and the heads, oldest first (ordered only when listed; at least the first `--limit`). */
interface Matched {
  count: number;
  heads(): readonly NodeHead[];
  /** The first `limit` heads as `status` prints them, JSON text joined by commas, when saved so (GroupHead.printed); null otherwise. */
  printed?(limit: number, entryOf: (head: NodeHead) => string): string | null;
}

/**
 * Each status group of `type`, from its bucket in the index: a group the filters leave whole is
 * counted by its size and never walked, so `status` costs what it lists, not the project's size.
 */
function matchedGroups(index: StatusIndex, type: NodeType, statuses: readonly string[], filters: StatusFilters): Map<string, Matched> {
  return new Map(
    statuses.map((status): [string, Matched] => {
      if ((filters.kind !== undefined && filters.kind !== type) || (filters.status !== undefined && filters.status !== status)) return [status, { count: 0, heads: () => [] }];
      if (!narrows(filters, type, status)) {
        const group = index.statusGroup(type, status);
        return [status, { count: group.count, heads: () => group.first(filters.limit), printed: group.printed }];
      }
      const heads = index.bucket(type, status).inOrder().filter((head) => inScope(head, filters));
      return [status, { count: heads.length, heads: () => heads }];
    }),
  );
}

/** The ready tasks the filters keep, in ranking order: the same tasks as `ready`, counted the same. */
function rankedReady(view: GraphView, ready: Matched, filters: StatusFilters): Matched {
  if (ready.count === 0) return ready;
  const heads = view.statuses.all();
  return {
    count: ready.count,
    heads: () =>
      view.ranking
        .ranked()
        .inOrder()
        .map((entry) => heads.get(entry.id)!)
        .filter((head) => inScope(head, filters)),
  };
}

/** Whether a filter can leave out some of the heads of one type and status. */
function narrows(filters: StatusFilters, type: NodeType, status: string): boolean {
  return filters.initiative !== undefined || filters.domain !== undefined || (filters.claimed_by !== undefined && type === 'task' && status === 'in_progress');
}

function inScope(head: NodeHead, filters: StatusFilters): boolean {
  if (filters.initiative !== undefined && head.initiative !== filters.initiative) return false;
  if (filters.domain !== undefined && head.domain !== filters.domain) return false;
  if (filters.claimed_by !== undefined && head.status === 'in_progress' && head.type === 'task' && head.claim?.by !== filters.claimed_by) return false;
  return true;
}

/** Every stale claim of the project, the longest-held first; only `--claimed-by` narrows them. */
function staleClaims(claimed: readonly ClaimedTask[], now: Timestamp, filters: StatusFilters): StaleClaimAlert[] {
  const alerts: StaleClaimAlert[] = [];
  // A claim taken at or before the cutoff is stale: one string comparison, not two dates parsed, per claim.
  const cutoff = timestampBefore(now, filters.staleMs);
  const nowMillis = Date.parse(now);
  for (const head of claimed) {
    const claim = head.claim!;
    // Claims come longest-held first: after the first one past the cutoff, none is stale.
    if (claim.at > cutoff) break;
    if (filters.claimed_by !== undefined && claim.by !== filters.claimed_by) continue;
    alerts.push(staleClaimAlertAged(head.id, claim, nowMillis - Date.parse(claim.at)));
  }
  return alerts;
}

/** The counts of `status` alone, for the whole project (the board's catalog and snapshot). */
export function statusSummary(view: GraphView, now: Timestamp): StatusReport['summary'] {
  return statusReport(view, now, { staleMs: Number.MAX_SAFE_INTEGER, limit: 1, all: false }).summary;
}
