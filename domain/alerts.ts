import { millisBetween, type Timestamp } from './clock.js';
import type { GraphIndex } from './graph-index.js';
import type { GraphView } from './graph-view.js';
import type { AgentName, Claim, GateNode, KnowledgeNode, NodeId, TaskNode } from './model.js';
import { isBlockerSatisfied } from './status.js';

/** A claim held this long without a change is stale unless `--stale-ms` says otherwise: two hours. */
export const DEFAULT_STALE_MS = 2 * 60 * 60 * 1000;

export interface StaleClaimAlert {
  kind: 'STALE_CLAIM';
  node: NodeId;
  claimed_by: AgentName;
  claimed_at: Timestamp;
  age_ms: number;
  message: string;
}

export interface SupersededBlockerAlert {
  kind: 'SUPERSEDED_BLOCKER';
  node: NodeId;
  blocker: NodeId;
  /** The gates that directly replace the blocker. */
  superseded_by: NodeId[];
  /** Whether the chain of successors already ends in a resolved gate (spec 3.2). */
  satisfied: boolean;
  message: string;
}

export interface KnowledgeDeprecatedSoonAlert {
  kind: 'KNOWLEDGE_DEPRECATED_SOON';
  node: NodeId;
  knowledge: NodeId;
  deprecated_at: Timestamp | null;
  deprecation_reason: string | null;
  superseded_by: NodeId[];
  message: string;
}

export type Alert = StaleClaimAlert | SupersededBlockerAlert | KnowledgeDeprecatedSoonAlert;

/** Age of a claim at `now`; time comes from the caller, never from a clock here. */
export function claimAge(claim: Claim, now: Timestamp): number {
  return millisBetween(claim.at, now);
}

/** A claim is stale once its age reaches the threshold (so `--stale-ms 0` flags every claim). */
export function isStale(claim: Claim, now: Timestamp, staleMs: number): boolean {
  return claimAge(claim, now) >= staleMs;
}

/** What a stale claim is judged on: a task, or its StatusIndex head (whose status is the task's in progress). */
type ClaimHolder = Pick<TaskNode, 'id' | 'claim'> & { status: string };

export function staleClaimAlert(task: ClaimHolder, now: Timestamp, staleMs: number): StaleClaimAlert | null {
  if (task.status !== 'in_progress' || task.claim === null) return null;
  const age = claimAge(task.claim, now);
  return age < staleMs ? null : staleClaimAlertAged(task.id, task.claim, age);
}

/** The alert for a claim already known to be stale, `age` milliseconds old. */
export function staleClaimAlertAged(node: NodeId, claim: Claim, age: number): StaleClaimAlert {
  return {
    kind: 'STALE_CLAIM',
    node,
    claimed_by: claim.by,
    claimed_at: claim.at,
    age_ms: age,
    message: `${node} has been claimed by ${claim.by} for ${age} ms without being submitted or released`,
  };
}

/** A task waits on a superseded gate: the decision moved, the edge may need to follow it. */
export function supersededBlockerAlert(view: GraphView, node: NodeId, blocker: GateNode): SupersededBlockerAlert {
  const supersededBy = successorsOf(view.index, blocker.id);
  const satisfied = isBlockerSatisfied(view.graph, view.index, blocker.id);
  return {
    kind: 'SUPERSEDED_BLOCKER',
    node,
    blocker: blocker.id,
    superseded_by: supersededBy,
    satisfied,
    message: `${node} is blocked by ${blocker.id}, which is superseded by ${supersededBy.join(', ') || 'nothing'}: point the BLOCKS edge at the successor`,
  };
}

/**
 * Knowledge whose scope matches the node has been deprecated: the guidance an agent may have
 * followed is retired, and its successors (if any) are what to read instead.
 */
export function deprecatedKnowledgeAlert(index: GraphIndex, node: NodeId, knowledge: KnowledgeNode): KnowledgeDeprecatedSoonAlert {
  const supersededBy = successorsOf(index, knowledge.id);
  return {
    kind: 'KNOWLEDGE_DEPRECATED_SOON',
    node,
    knowledge: knowledge.id,
    deprecated_at: knowledge.deprecated_at,
    deprecation_reason: knowledge.deprecation_reason,
    superseded_by: supersededBy,
    message: `Knowledge ${knowledge.id} matching ${node} is deprecated${knowledge.deprecation_reason ? `: ${knowledge.deprecation_reason}` : ''}`,
  };
}

/** The nodes that directly supersede `id` (new -SUPERSEDES-> old). */
function successorsOf(index: GraphIndex, id: NodeId): NodeId[] {
  return index.into(id, 'SUPERSEDES').map((edge) => edge.from).sort();
}
