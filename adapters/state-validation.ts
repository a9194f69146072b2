import type { Graph, State } from '../domain/model.js';
import { graphShapeProblem, stateProblem } from '../domain/state-shape.js';
import { invalidFile } from './storage-error.js';

/** The shape every load of our own checkpoint relies on; STORAGE_ERROR names the first problem. */
export function assertGraphShape(value: unknown, path: string): asserts value is Graph {
  const problem = graphShapeProblem(value);
  if (problem) throw invalidFile(path, problem);
}

/** A whole schema-1 state from outside our commits (a snapshot, an import), checked in depth. */
export function assertStateShape(value: unknown, path: string): asserts value is State {
  const problem = stateProblem(value);
  if (problem) throw invalidFile(path, problem);
}
