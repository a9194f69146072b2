import type { State } from './model.js';

/**
 * The canonical form of a state: the seven collections in a fixed order, nodes sorted by id and
 * initiatives by name. Edges and log keep their order, which is meaningful.
 */
export function projectState(state: State): State {
  return {
    version: state.version,
    fence_generation: state.fence_generation,
    revision: state.revision,
    initiatives: sortedByKey(state.initiatives),
    nodes: sortedByKey(state.nodes),
    edges: [...state.edges],
    log: state.log,
  };
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key]!;
  return sorted;
}
