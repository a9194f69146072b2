import { nodeOf } from './node-map.js';
import type { GraphView } from './graph-view.js';
import { isKnowledge, type GraphNode, type KnowledgeNode, type KnowledgeScope } from './model.js';

/** Scope lists from the most specific to the least: a node id names one node, an initiative many. */
export const SPECIFICITY: readonly (keyof KnowledgeScope)[] = ['node_ids', 'tags', 'domains', 'initiatives'];

export interface KnowledgeMatch {
  knowledge: KnowledgeNode;
  /** The scope lists that matched, most specific first. */
  matched_on: (keyof KnowledgeScope)[];
}

/**
 * Knowledge whose scope matches `target`: its id in `node_ids`, one of its tags in `tags`, its
 * domain in `domains`, or its initiative in `initiatives`. Ordered by specificity: by the most
 * specific list that matched, then by how many lists matched (more first), then by id.
 */
export function matchingKnowledge(view: Pick<GraphView, 'graph' | 'statuses'>, target: GraphNode): KnowledgeMatch[] {
  const matches: KnowledgeMatch[] = [];
  // Scopes are read from the heads, found by scope entry: only the knowledge that matches is read whole.
  for (const head of view.statuses.knowledgeScoping(target)) {
    if (head.scope === null || head.id === target.id) continue;
    const matched_on = SPECIFICITY.filter((list) => scopeListMatches(head.scope!, list, target));
    const node = matched_on.length > 0 ? nodeOf(view.graph, head.id) : undefined;
    if (isKnowledge(node)) matches.push({ knowledge: node, matched_on });
  }
  return matches.sort(bySpecificity);
}

function scopeListMatches(scope: KnowledgeScope, list: keyof KnowledgeScope, target: GraphNode): boolean {
  switch (list) {
    case 'node_ids':
      return scope.node_ids.includes(target.id);
    case 'tags':
      return target.tags.some((tag) => scope.tags.includes(tag));
    case 'domains':
      return target.domain !== null && scope.domains.includes(target.domain);
    case 'initiatives':
      return scope.initiatives.includes(target.initiative);
  }
}

function bySpecificity(a: KnowledgeMatch, b: KnowledgeMatch): number {
  const rank = SPECIFICITY.indexOf(a.matched_on[0]!) - SPECIFICITY.indexOf(b.matched_on[0]!);
  if (rank !== 0) return rank;
  if (a.matched_on.length !== b.matched_on.length) return b.matched_on.length - a.matched_on.length;
  return a.knowledge.id < b.knowledge.id ? -1 : 1;
}
