import { nodeIds } from './node-map.js';
import { DomainError } from './errors.js';
import type { Graph, NodeId } from './model.js';
import { closestTo, didYouMean } from './suggestions.js';

/**
 * NODE_NOT_FOUND for `id`, with the graph's ids closest to it in `details.suggestions` (an id in
 * the wrong case, a slipped character). `where` ends the first sentence (` in project P`).
 */
export function nodeNotFound(graph: Graph, id: NodeId, where = ''): DomainError {
  const suggestions = closestTo(id, nodeIds(graph));
  return new DomainError('NODE_NOT_FOUND', `No node with id ${id}${where}${didYouMean(suggestions)}`, {
    id,
    ...(suggestions.length > 0 ? { suggestions } : {}),
  });
}
