import { nodeOf } from './node-map.js';
import { deprecatedKnowledgeAlert, isStale, staleClaimAlert, supersededBlockerAlert, type Alert } from './alerts.js';
import type { Timestamp } from './clock.js';
import type { GraphView } from './graph-view.js';
import { matchingKnowledge } from './knowledge-matching.js';
import { isGate, isKnowledge, isTask, type AgentName, type Claim, type EdgeType, type GraphNode, type KnowledgeNode, type KnowledgeScope } from './model.js';
import { summarize, type NodeSummary } from './node-summary.js';
import { allowedActions, judge, type Action } from './permissions.js';
import { derivedStatus, isBlockerSatisfied } from './status.js';

export interface BlockingEntry {
  /** The blocker, whole. */
  node: GraphNode;
  derived_status: string;
  satisfied: boolean;
}

export interface KnowledgeEntry {
  node: KnowledgeNode;
  matched_on: (keyof KnowledgeScope)[];
}

export interface InformingEntry {
  edge_type: EdgeType;
  node: NodeSummary;
}

export interface NodeContext {
  node: GraphNode;
  derived_status: string;
  can_claim: boolean;
  revision: number;
  claim: (Claim & { stale: boolean }) | null;
  blocking: BlockingEntry[];
  knowledge: KnowledgeEntry[];
  informing: InformingEntry[];
  alerts: Alert[];
  allowed_actions: Action[];
}

export interface ContextOptions {
  /** The caller; `allowed_actions` is empty without one, since every action needs an identity. */
  agent: AgentName | null;
  staleMs: number;
}

/** Everything an agent needs to work on one node (spec 4.4 `context`). */
export function nodeContext(view: GraphView, node: GraphNode, now: Timestamp, options: ContextOptions): NodeContext {
  const claim = isTask(node) && node.claim ? { ...node.claim, stale: isStale(node.claim, now, options.staleMs) } : null;
  const blocking = blockingOf(view, node);
  const matches = isKnowledge(node) ? [] : matchingKnowledge(view, node);
  const knowledge = matches.filter((match) => match.knowledge.status === 'active').map((match) => ({ node: match.knowledge, matched_on: match.matched_on }));
  const alerts: Alert[] = [];
  const stale = isTask(node) ? staleClaimAlert(node, now, options.staleMs) : null;
  if (stale) alerts.push(stale);
  for (const entry of blocking) {
    if (isGate(entry.node) && entry.node.status === 'superseded') alerts.push(supersededBlockerAlert(view, node.id, entry.node));
  }
  for (const match of matches) {
    if (match.knowledge.status === 'deprecated') alerts.push(deprecatedKnowledgeAlert(view.index, node.id, match.knowledge));
  }
  return {
    node,
    derived_status: derivedStatus(view.graph, view.index, node),
    can_claim: canClaim(view, node, options.agent),
    revision: node.revision,
    claim,
    blocking,
    knowledge,
    informing: informingOf(view, node),
    alerts,
    allowed_actions: allowedActions(view, node, options.agent),
  };
}

/** Whether a `take` by the caller would claim the node; without an identity, whether the task is ready. */
function canClaim(view: GraphView, node: GraphNode, agent: AgentName | null): boolean {
  if (agent !== null) return judge(view, node, 'take', agent).outcome === 'allowed';
  return isTask(node) && derivedStatus(view.graph, view.index, node) === 'ready';
}

/** Incoming BLOCKS edges: what this node waits on, with whether each wait is over. */
function blockingOf(view: GraphView, node: GraphNode): BlockingEntry[] {
  return view.index.into(node.id, 'BLOCKS').map((edge) => {
    const blocker = nodeOf(view.graph, edge.from)!;
    return {
      node: blocker,
      derived_status: derivedStatus(view.graph, view.index, blocker),
      satisfied: isBlockerSatisfied(view.graph, view.index, blocker.id),
    };
  });
}

/** The nodes this one informs: what it blocks (outgoing BLOCKS) and what was derived from it. */
function informingOf(view: GraphView, node: GraphNode): InformingEntry[] {
  const blocked = view.index.outOf(node.id, 'BLOCKS').map((edge) => ({ edge_type: edge.type, id: edge.to }));
  const derived = view.index.into(node.id, 'DERIVED_FROM').map((edge) => ({ edge_type: edge.type, id: edge.from }));
  return [...blocked, ...derived].map(({ edge_type, id }) => ({ edge_type, node: summarize(view.graph, view.index, nodeOf(view.graph, id)!) }));
}
