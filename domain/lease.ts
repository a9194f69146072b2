import { millisBetween, type Timestamp } from './clock.js';
import type { GraphDraft } from './draft.js';
import { DomainError } from './errors.js';
import { assertFence } from './fencing.js';
import { renewLease, revise } from './lifecycle.js';
import { isTask, nodeType, type AgentName, type GraphNode, type NodeId, type TaskNode } from './model.js';
import { isAdministrator } from './permissions.js';
import { derivedStatus } from './status.js';

/* Renewing a lease and sweeping expired ones: see fencing.ts for what a lease and a token are. */

/**
 * The holder renews its claim's lease: it runs `leaseMs` (default: the lease it has) from now.
 * Only the holder renews, and only a claim that is still its own (`token`, when given).
 */
export function renew(draft: GraphDraft, id: NodeId, options: { leaseMs?: number; token?: number }): { node: TaskNode } {
  const node = draft.requireNode(id);
  assertFence(node, 'renew', options.token);
  const task = heldBy(draft, node, draft.actor());
  const leaseMs = options.leaseMs ?? task.claim!.lease_ms;
  if (leaseMs === undefined) {
    throw new DomainError('MISSING_FIELD', `${id} is claimed without a lease: give --lease to put one on it`, {
      operation: 'renew',
      field: 'lease',
      flag: '--lease',
      missing: [{ field: 'lease', flag: '--lease' }],
      id,
    });
  }
  return { node: renewLease(draft, task, leaseMs) };
}

/** The task `node` as claimed by `agent`, or the refusal a renewal gets. */
function heldBy(draft: GraphDraft, node: GraphNode, agent: AgentName): TaskNode {
  if (!isTask(node)) {
    throw new DomainError('NOT_CLAIMABLE', `${node.id} is a ${nodeType(node)}: only tasks are claimed (renew)`, { id: node.id, type: nodeType(node), action: 'renew' });
  }
  if (node.status !== 'in_progress' || node.claim === null) {
    const status = derivedStatus(draft.graph, draft.index, node);
    throw new DomainError('INVALID_STATUS', `Cannot renew ${node.id}: it is a ${status} task (needs: claimed in_progress task)`, {
      id: node.id,
      type: 'task',
      status,
      action: 'renew',
      expected: ['claimed in_progress task'],
    });
  }
  if (node.claim.by !== agent) {
    throw new DomainError('NOT_OWNER', `Only ${node.claim.by} may renew ${node.id}`, { id: node.id, action: 'renew', owner: node.claim.by });
  }
  return node;
}

/** A claim a sweep released: whose it was, its token, when its lease ended and how long ago. */
export interface SweptClaim {
  id: NodeId;
  by: AgentName;
  token: number | null;
  expires_at: Timestamp;
  overdue_ms: number;
}

/**
 * Releases every claim whose lease ended at or before now, in one transaction with one log entry
 * each (`op: lease-expired`), earliest expiry first. Claims without a lease never expire. Only an
 * administrator sweeps (`recovery` is the agent for it).
 */
export function sweepLeases(draft: GraphDraft): { released: SweptClaim[] } {
  const agent = draft.actor();
  if (!isAdministrator(agent)) {
    throw new DomainError('NOT_OWNER', 'Only recovery or orchestrator may sweep expired leases', { action: 'sweep-leases', owner: null, agent });
  }
  const expired: NodeId[] = [];
  // Leases come earliest expiry first: after the first one still running, none has ended.
  for (const head of draft.statuses.leased().inOrder()) {
    if (head.claim!.expires_at! > draft.now) break;
    expired.push(head.id);
  }
  const released: SweptClaim[] = [];
  for (const id of expired) {
    const task = draft.requireNode(id) as TaskNode;
    const claim = task.claim!;
    revise(draft, task, { status: 'open', claim: null });
    draft.record({ op: 'lease-expired', node: id, released_from: claim.by, token: claim.token ?? null, expires_at: claim.expires_at });
    released.push({ id, by: claim.by, token: claim.token ?? null, expires_at: claim.expires_at!, overdue_ms: millisBetween(claim.expires_at!, draft.now) });
  }
  return { released };
}
