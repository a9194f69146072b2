import type { GraphDraft } from './draft.js';
import { assertFence, newClaim, renewedClaim } from './fencing.js';
import { isGate, isTask, type GateNode, type GraphNode, type KnowledgeNode, type NodeId, type TaskNode } from './model.js';
import { authorize, type Action } from './permissions.js';
import { readinessDependents, readyAmong } from './status.js';
import { NO_WORK } from './task-work.js';

/*
 * The transitions of spec 3.3. Each one asks `authorize` (permissions.ts) first, so a refused
 * action changes nothing; then writes the node with its revision bumped and records one log
 * entry. Idempotent no-ops (a holder re-taking, releasing an unclaimed task) write nothing.
 */

export interface TakeResult {
  node: TaskNode;
  freshly_claimed: boolean;
}

/**
 * Claims a task, with a lease of `leaseMs` when given (fencing.ts). The claim's fencing token is
 * the revision its log entry gets. The holder taking its task again changes nothing, unless the
 * claim has a lease or one is asked for: then taking again renews it (from now, for `leaseMs` or
 * the lease it has).
 */
export function take(draft: GraphDraft, id: NodeId, leaseMs?: number): TakeResult {
  const task = draft.requireNode(id);
  if (authorize(draft, task, 'take', draft.actor()) === 'unchanged') {
    const held = task as TaskNode;
    const renewal = leaseMs ?? held.claim!.lease_ms;
    if (renewal === undefined) return { node: held, freshly_claimed: false };
    return { node: renewLease(draft, held, renewal), freshly_claimed: false };
  }
  const previous = (task as TaskNode).claim;
  // The token is the revision this take's log entry gets: one claim, one token, never reused.
  const claim = newClaim(draft.actor(), draft.now, draft.graph.revision + 1, leaseMs);
  const node = revise(draft, task as TaskNode, { status: 'in_progress', claim });
  draft.record({ op: 'take', node: id, token: claim.token, ...(previous ? { taken_over_from: previous.by } : {}), ...(leaseMs === undefined ? {} : { expires_at: claim.expires_at }) });
  return { node, freshly_claimed: true };
}

/** Runs the lease of `task`'s claim for `leaseMs` from now, logged as a `renew`. */
export function renewLease(draft: GraphDraft, task: TaskNode, leaseMs: number): TaskNode {
  const node = revise(draft, task, { claim: renewedClaim(task.claim!, draft.now, leaseMs) });
  draft.record({ op: 'renew', node: task.id, token: node.claim!.token ?? null, expires_at: node.claim!.expires_at });
  return node;
}

/** Gives a claimed task back; `token`, when given, must be the current claim's (fencing.ts). */
export function release(draft: GraphDraft, id: NodeId, token?: number): { released: boolean; node: GraphNode } {
  const task = draft.requireNode(id);
  assertFence(task, 'release', token);
  if (authorize(draft, task, 'release', draft.actor()) === 'unchanged') return { released: false, node: task };
  const held = (task as TaskNode).claim!;
  const node = revise(draft, task as TaskNode, { status: 'open', claim: null });
  draft.record({ op: 'release', node: id, released_from: held.by });
  return { released: true, node };
}

/** Hands in a held task; `token`, when given, must be the current claim's (fencing.ts). */
export function submit(draft: GraphDraft, id: NodeId, note: string, token?: number): { node: TaskNode; newly_ready: NodeId[] } {
  assertFence(draft.requireNode(id), 'submit', token);
  const task = permitted<TaskNode>(draft, id, 'submit');
  const node = revise(draft, task, { status: 'submitted', claim: null, submitted_by: draft.actor(), submitted_at: draft.now, note });
  draft.record({ op: 'submit', node: id, note });
  // A submitted task never satisfies a BLOCKS edge (spec 3.2), so nothing can become ready.
  return { node, newly_ready: [] };
}

export function accept(draft: GraphDraft, id: NodeId): { node: TaskNode; newly_ready: NodeId[] } {
  const task = permitted<TaskNode>(draft, id, 'accept');
  return withNewlyReady(draft, id, () => {
    // Accepted work carries no rejection any more: what was wrong with it has been put right.
    const { rejection: _cleared, ...unrejected } = task;
    const node = revise(draft, unrejected, {
      status: 'done',
      done_by: task.submitted_by,
      done_at: draft.now,
      accepted_by: draft.actor(),
      accepted_at: draft.now,
    });
    draft.record({ op: 'accept', node: id });
    return node;
  });
}

export function reject(draft: GraphDraft, id: NodeId, reason: string): { node: TaskNode } {
  const task = permitted<TaskNode>(draft, id, 'reject');
  // The reason travels with the task (show, context, take), so whoever takes it next sees why.
  const node = revise(draft, task, { status: 'open', ...NO_WORK, rejection: { reason, by: draft.actor(), at: draft.now } });
  draft.record({ op: 'reject', node: id, reason, rejected_submission_of: task.submitted_by });
  return { node };
}

export function resolve(draft: GraphDraft, id: NodeId, choice: string, rationale: string): { node: GateNode; newly_ready: NodeId[] } {
  const gate = permitted<GateNode>(draft, id, 'resolve');
  return withNewlyReady(draft, id, () => {
    const node = revise(draft, gate, { status: 'resolved', resolution: { choice, rationale }, resolved_by: draft.actor(), resolved_at: draft.now });
    draft.record({ op: 'resolve', node: id, choice });
    return node;
  });
}

/** A done task or a resolved gate goes back to `open`; what made it done or resolved is cleared. */
export function reopen(draft: GraphDraft, id: NodeId, reason: string): { node: GraphNode } {
  const target = permitted<TaskNode | GateNode>(draft, id, 'reopen');
  const node = isTask(target)
    ? revise(draft, target, { status: 'open', ...NO_WORK })
    : revise(draft, target, { status: 'open', resolution: null, resolved_by: null, resolved_at: null });
  draft.record({ op: 'reopen', node: id, reason });
  return { node };
}

export function cancel(draft: GraphDraft, id: NodeId, reason: string): { node: GraphNode } {
  const target = permitted<TaskNode | GateNode>(draft, id, 'cancel');
  const node = isGate(target) ? revise(draft, target, { status: 'canceled' }) : revise(draft, target, { status: 'canceled', claim: null });
  draft.record({ op: 'cancel', node: id, reason });
  return { node };
}

export function deprecateKnowledge(draft: GraphDraft, id: NodeId, reason: string): { node: KnowledgeNode } {
  const knowledge = permitted<KnowledgeNode>(draft, id, 'deprecate-knowledge');
  const node = revise(draft, knowledge, {
    status: 'deprecated',
    deprecation_reason: reason,
    deprecated_at: draft.now,
    deprecated_by: draft.actor(),
  });
  draft.record({ op: 'deprecate-knowledge', node: id, reason });
  return { node };
}

/** Notes are append-only: a new one is added with its time and author, earlier ones never change. */
export function addNote(draft: GraphDraft, id: NodeId, text: string): { node: GraphNode } {
  const target = permitted<GraphNode>(draft, id, 'add-note');
  const node = draft.appendNote(target, { at: draft.now, by: draft.actor(), text });
  draft.record({ op: 'add-note', node: id, note: text });
  return { node };
}

function permitted<T extends GraphNode>(draft: GraphDraft, id: NodeId, action: Action): T {
  const node = draft.requireNode(id);
  authorize(draft, node, action, draft.actor());
  return node as T;
}

/** Writes a new version of the node: every change of a node bumps its revision and `updated_at`. */
export function revise<T extends GraphNode>(draft: GraphDraft, node: T, changes: Partial<T>): T {
  const next = { ...node, ...changes, revision: node.revision + 1, updated_at: draft.now };
  draft.putNode(next);
  return next;
}

/**
 * Runs a mutation of node `id` and reports the tasks that were not ready before it and are ready
 * after it, sorted by id. Only the tasks whose readiness can depend on `id` are compared, before
 * and after, which is exact (see readinessDependents) without walking the whole graph twice.
 */
export function withNewlyReady<T>(draft: GraphDraft, id: NodeId, mutate: () => T): { node: T; newly_ready: NodeId[] } {
  const candidates = readinessDependents(draft.graph, draft.index, id);
  const before = readyAmong(draft.graph, draft.index, candidates);
  const node = mutate();
  for (const dependent of readinessDependents(draft.graph, draft.index, id)) candidates.add(dependent);
  const after = readyAmong(draft.graph, draft.index, candidates);
  return { node, newly_ready: [...after].filter((ready) => !before.has(ready)).sort() };
}
