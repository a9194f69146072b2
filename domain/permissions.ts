import { BlockerFinder } from './blockers.js';
import { DomainError } from './errors.js';
import type { GraphView } from './graph-view.js';
import { isGate, isKnowledge, isTask, nodeType, type AgentName, type GraphNode, type TaskNode } from './model.js';
import { derivedStatus, derivedTaskStatus } from './status.js';

/** Every action an agent may take on an existing node (spec 4.3), in the order `allowed_actions` lists them. */
export const ACTIONS = [
  'take',
  'release',
  'submit',
  'accept',
  'reject',
  'resolve',
  'reopen',
  'cancel',
  'deprecate-knowledge',
  'add-note',
  'update',
] as const;
export type Action = (typeof ACTIONS)[number];

/** The agents with administrative rights (spec 1.1): they may act on work they do not own. */
export const ADMINISTRATORS: readonly AgentName[] = ['orchestrator', 'recovery'];

export function isAdministrator(agent: AgentName): boolean {
  return ADMINISTRATORS.includes(agent);
}

/**
 * The answer to "may `agent` do `action` on this node now": it changes the node, it is an
 * idempotent no-op that succeeds and writes nothing (a holder re-taking its task, releasing a
 * task nobody holds), or it is refused with the error the command reports.
 */
export type Verdict = { outcome: 'allowed' } | { outcome: 'unchanged' } | { outcome: 'refused'; error(): DomainError };

const ALLOWED: Verdict = { outcome: 'allowed' };
const UNCHANGED: Verdict = { outcome: 'unchanged' };

/**
 * The single source of truth for permissions and status conditions. Every lifecycle rule asks
 * it before changing a node, and `allowed_actions` is the list of actions it allows, so the
 * two can never disagree. Status conditions are checked before ownership: an action the node's
 * status rules out is INVALID_STATUS whoever asks. The rules are written down in docs/lifecycle.md.
 */
export function judge(view: GraphView, node: GraphNode, action: Action, agent: AgentName): Verdict {
  switch (action) {
    case 'take':
      return judgeTake(view, node, agent);
    case 'release':
      return judgeRelease(node, agent);
    case 'submit':
      if (!isTask(node)) return notClaimable(node, action);
      if (node.status !== 'in_progress') return invalidStatus(view, node, action, ['in_progress']);
      return node.claim?.by === agent ? ALLOWED : notOwner(node, action, node.claim?.by ?? null);
    case 'accept':
      if (!isTask(node) || node.status !== 'submitted') return invalidStatus(view, node, action, ['submitted task']);
      return view.review === 'independent' && node.submitted_by === agent ? selfReview(node, agent) : ALLOWED;
    case 'reject':
      return isTask(node) && node.status === 'submitted' ? ALLOWED : invalidStatus(view, node, action, ['submitted task']);
    case 'resolve':
      return isGate(node) && node.status === 'open' ? ALLOWED : invalidStatus(view, node, action, ['open gate']);
    case 'reopen':
      return judgeReopen(view, node, agent);
    case 'cancel':
      return judgeCancel(view, node, agent);
    case 'deprecate-knowledge':
      return isKnowledge(node) && node.status === 'active' ? ALLOWED : invalidStatus(view, node, action, ['active knowledge']);
    case 'add-note':
    case 'update':
      return ALLOWED;
  }
}

/** The actions `judge` allows, for `context`'s `allowed_actions`; none without an identity. */
export function allowedActions(view: GraphView, node: GraphNode, agent: AgentName | null): Action[] {
  if (agent === null) return [];
  return ACTIONS.filter((action) => judge(view, node, action, agent).outcome === 'allowed');
}

/** Throws the refusal, if any; otherwise says whether the action changes anything. */
export function authorize(view: GraphView, node: GraphNode, action: Action, agent: AgentName): 'allowed' | 'unchanged' {
  const verdict = judge(view, node, action, agent);
  if (verdict.outcome === 'refused') throw verdict.error();
  return verdict.outcome;
}

function judgeTake(view: GraphView, node: GraphNode, agent: AgentName): Verdict {
  if (!isTask(node)) {
    // The spec names resolved and superseded nodes as NOT_READY; every other non-task can never be claimed.
    if (isGate(node) && (node.status === 'resolved' || node.status === 'superseded')) return notReady(view, node);
    return notClaimable(node, 'take');
  }
  const status = derivedTaskStatus(view.graph, view.index, node);
  if (status === 'ready') return ALLOWED;
  if (status !== 'in_progress') return notReady(view, node);
  if (node.claim === null) return ALLOWED;
  if (node.claim.by === agent) return UNCHANGED;
  if (agent === 'orchestrator') return ALLOWED;
  const claim = node.claim;
  return refused(() => new DomainError('ALREADY_CLAIMED', `${node.id} is already claimed by ${claim.by}`, { id: node.id, claimed_by: claim.by, claimed_at: claim.at }));
}

function judgeRelease(node: GraphNode, agent: AgentName): Verdict {
  if (!isTask(node)) return notClaimable(node, 'release');
  if (node.claim === null) return UNCHANGED;
  return node.claim.by === agent || isAdministrator(agent) ? ALLOWED : notOwner(node, 'release', node.claim.by);
}

function judgeReopen(view: GraphView, node: GraphNode, agent: AgentName): Verdict {
  if (isTask(node) && node.status === 'done') return ownerOrAdministrator(node, 'reopen', node.done_by, agent);
  if (isGate(node) && node.status === 'resolved') return ownerOrAdministrator(node, 'reopen', node.resolved_by, agent);
  return invalidStatus(view, node, 'reopen', ['done task', 'resolved gate']);
}

/**
 * Claimed work may be canceled by whoever holds it (the claim holder, or the submitter once
 * submitted); unclaimed open tasks and open gates by an administrator only.
 */
function judgeCancel(view: GraphView, node: GraphNode, agent: AgentName): Verdict {
  if (isTask(node) && ['open', 'in_progress', 'submitted'].includes(node.status)) {
    return ownerOrAdministrator(node, 'cancel', workOwner(node), agent);
  }
  if (isGate(node) && node.status === 'open') return ownerOrAdministrator(node, 'cancel', null, agent);
  return invalidStatus(view, node, 'cancel', ['open, in_progress or submitted task', 'open gate']);
}

function workOwner(task: TaskNode): AgentName | null {
  if (task.status === 'in_progress') return task.claim?.by ?? null;
  if (task.status === 'submitted') return task.submitted_by;
  return null;
}

function ownerOrAdministrator(node: GraphNode, action: Action, owner: AgentName | null, agent: AgentName): Verdict {
  return agent === owner || isAdministrator(agent) ? ALLOWED : notOwner(node, action, owner);
}

/**
 * A refusal whose error is made only when it is thrown: `allowed_actions` asks about every action,
 * and most are refused, so it must not pay for an error (a stack trace, a derived status) each.
 */
function refused(error: () => DomainError): Verdict {
  return { outcome: 'refused', error };
}

function notReady(view: GraphView, node: GraphNode): Verdict {
  return refused(() => {
    const status = derivedStatus(view.graph, view.index, node);
    if (status !== 'blocked') return new DomainError('NOT_READY', `${node.id} is ${status}, not ready: only ready tasks can be taken`, { id: node.id, status });
    const blockers = new BlockerFinder(view).of(node.id);
    return new DomainError('NOT_READY', `${node.id} is blocked by ${blockers.direct.join(', ')}${blockers.direct_count > blockers.direct.length ? ' and more' : ''}: only ready tasks can be taken`, {
      id: node.id,
      status,
      blockers,
    });
  });
}

/** Under the independent review rule, nobody accepts their own submission, administrators included. */
function selfReview(node: TaskNode, agent: AgentName): Verdict {
  return refused(
    () =>
      new DomainError('INDEPENDENT_REVIEW_REQUIRED', `${agent} submitted ${node.id}: this project's review rule is independent, so another agent must accept it`, {
        id: node.id,
        action: 'accept',
        submitted_by: agent,
        review: 'independent',
      }),
  );
}

function notClaimable(node: GraphNode, action: Action): Verdict {
  return refused(
    () =>
      new DomainError('NOT_CLAIMABLE', `${node.id} is a ${nodeType(node)}: only tasks are claimed (${action})`, {
        id: node.id,
        type: nodeType(node),
        action,
      }),
  );
}

function notOwner(node: GraphNode, action: Action, owner: AgentName | null): Verdict {
  const who = owner === null ? 'an administrator (orchestrator or recovery)' : `${owner} or an administrator`;
  return refused(() => new DomainError('NOT_OWNER', `Only ${who} may ${action} ${node.id}`, { id: node.id, action, owner }));
}

function invalidStatus(view: GraphView, node: GraphNode, action: Action, expected: string[]): Verdict {
  return refused(() => {
    const status = derivedStatus(view.graph, view.index, node);
    return new DomainError('INVALID_STATUS', `Cannot ${action} ${node.id}: it is a ${status} ${nodeType(node)} (needs: ${expected.join(' or ')})`, {
      id: node.id,
      type: nodeType(node),
      status,
      action,
      expected,
    });
  });
}
