import { millisBetween, type Timestamp } from './clock.js';
import type { GraphIndex } from './graph-index.js';
import type { GraphView } from './graph-view.js';
import type { AgentName, Claim, GateNode, KnowledgeNode, NodeId, TaskNode } from './model.js';
import type { ClaimEntry } from './status-index.js';
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

/**
 * The fixed text between the strings and numbers of a stale-claim alert as `JSON.stringify` writes
 * `staleClaimAlertAged` of it: `open` node `by` holder `at` time `age` age `message` node `held`
 * holder `for` age `close`. Every renderer of the alerts' text writes these pieces (a claim's
 * strings never need escaping there: isPlainJsonString).
 */
export const STALE_CLAIM_TEXT = {
  open: '{"kind":"STALE_CLAIM","node":"',
  by: '","claimed_by":"',
  at: '","claimed_at":"',
  age: '","age_ms":',
  message: ',"message":"',
  held: ' has been claimed by ',
  for: ' for ',
  close: ' ms without being submitted or released"}',
} as const;

/**
 * The JSON text of the stale-claim alerts of `claims` (the longest-held first, none of whose
 * strings JSON escapes: isPlainJsonString; each claim's time in milliseconds where the entry holds
 * it, parsed otherwise), the same bytes as `JSON.stringify` of the list of
 * `staleClaimAlertAged` of each claim taken at or before `cutoff` (by `holder`, when given), `now`
 * being `nowMillis`. `status` writes its alerts so from the claims a ledger tail changed (with none,
 * from the saved section's bytes: SavedBuckets.staleClaimAlerts). The
 * pieces go into one array joined once, set by index in one loop that calls no function of ours:
 * a short process runs this in V8's interpreter, where a template string or a call per alert
 * costs more than the alert's bytes (and a function called per alert gets optimized, 1-3 ms).
 */
export function staleClaimAlertsJson(claims: readonly ClaimEntry[], cutoff: Timestamp, nowMillis: number, holder: AgentName | undefined): string {
  // The pieces in locals, the first alert's opening without the comma the others have before it.
  const { open, by: claimedBy, at: claimedAt, age: ageMs, message, held, for: heldFor, close } = STALE_CLAIM_TEXT;
  const next = `,${open}`;
  const pieces = new Array<string | number>(2 + 15 * claims.length);
  let at = 0;
  pieces[at++] = '[';
  for (let index = 0; index < claims.length; index++) {
    const claim = claims[index]!;
    const node = claim[0];
    const by = claim[1];
    const since = claim[2];
    const millis = claim[3];
    // Claims come longest-held first: after the first one past the cutoff, none is stale.
    if (since > cutoff) break;
    if (holder !== undefined && by !== holder) continue;
    // The saved claim time in milliseconds where the entry has one: no date parsed per claim.
    const age = nowMillis - (typeof millis === 'number' ? millis : Date.parse(since));
    pieces[at++] = at === 2 ? open : next;
    pieces[at++] = node;
    pieces[at++] = claimedBy;
    pieces[at++] = by;
    pieces[at++] = claimedAt;
    pieces[at++] = since;
    pieces[at++] = ageMs;
    // JSON has no NaN (a claim time that does not parse): null, as JSON.stringify writes it; the message says NaN.
    pieces[at++] = age === age ? age : 'null';
    pieces[at++] = message;
    pieces[at++] = node;
    pieces[at++] = held;
    pieces[at++] = by;
    pieces[at++] = heldFor;
    pieces[at++] = age;
    pieces[at++] = close;
  }
  pieces[at++] = ']';
  pieces.length = at;
  return pieces.join('');
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
