import type { Graph, GraphNode, State } from '../domain/model.js';
import { graphHeaderProblem, graphShapeProblem, nodeShapeProblem, stateProblem } from '../domain/state-shape.js';
import { invalidFile } from './storage-error.js';

/** The shape every load of our own checkpoint relies on; STORAGE_ERROR names the first problem. */
export function assertGraphShape(value: unknown, path: string): asserts value is Graph {
  const problem = graphShapeProblem(value);
  if (problem) throw invalidFile(path, problem);
}

/** Everything of a graph but its nodes, which a checkpoint checks one by one as they load. */
export function assertGraphHeaderShape(value: unknown, path: string): asserts value is Graph {
  const problem = graphHeaderProblem(value);
  if (problem) throw invalidFile(path, problem);
}

export function assertNodeShape(node: unknown, id: string, path: string): asserts node is GraphNode {
  const problem = nodeShapeProblem(node, id);
  if (problem) throw invalidFile(path, problem);
}

/** A whole schema-1 state from outside our commits (a snapshot, an import), checked in depth. */
export function assertStateShape(value: unknown, path: string): asserts value is State {
  const problem = stateProblem(value);
  if (problem) throw invalidFile(path, problem);
}
