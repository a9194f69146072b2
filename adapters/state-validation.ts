import { isEdgeType } from '../domain/edges.js';
import type { Graph, GraphNode, State } from '../domain/model.js';
import { invalidFile } from './storage-error.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks the shape every reader relies on: schema 1 and its collections, nodes keyed by their
 * own id with a known kind, well-formed edges. Throws STORAGE_ERROR naming the first problem.
 */
export function assertGraphShape(value: unknown, path: string): asserts value is Graph {
  assertGraphHeaderShape(value, path);
  for (const [id, node] of Object.entries((value as Graph).nodes)) assertNodeShape(node, id, path);
}

/** Everything of a graph but its nodes, which a checkpoint checks one by one as they load. */
export function assertGraphHeaderShape(value: unknown, path: string): asserts value is Graph {
  if (!isObject(value)) throw invalidFile(path, 'the top level is not an object');
  if (value.version !== 1) throw invalidFile(path, `unsupported schema version ${JSON.stringify(value.version)} (run taskdag migrate)`);
  for (const field of ['fence_generation', 'revision'] as const) {
    if (!Number.isInteger(value[field])) throw invalidFile(path, `${field} is not an integer`);
  }
  if (!isObject(value.initiatives)) throw invalidFile(path, 'initiatives is not an object');
  if (!isObject(value.nodes)) throw invalidFile(path, 'nodes is not an object');
  if (!Array.isArray(value.edges)) throw invalidFile(path, 'edges is not an array');
  for (const edge of value.edges as unknown[]) {
    if (!isObject(edge) || typeof edge.from !== 'string' || typeof edge.to !== 'string' || !isEdgeType(edge.type)) {
      throw invalidFile(path, `edge ${JSON.stringify(edge)} is malformed`);
    }
  }
}

export function assertNodeShape(node: unknown, id: string, path: string): asserts node is GraphNode {
  if (!isObject(node) || node.id !== id) throw invalidFile(path, `node ${id} is malformed`);
  if (node.kind !== 'resolvable' && node.kind !== 'knowledge') throw invalidFile(path, `node ${id} has an unknown kind`);
  if (node.kind === 'resolvable' && node.subkind !== 'task' && node.subkind !== 'gate') {
    throw invalidFile(path, `node ${id} has an unknown subkind`);
  }
}

/** A whole schema-1 state: the graph's shape plus a log of entries. */
export function assertStateShape(value: unknown, path: string): asserts value is State {
  assertGraphShape(value, path);
  const log = (value as unknown as Record<string, unknown>).log;
  if (!Array.isArray(log)) throw invalidFile(path, 'log is not an array');
  for (const entry of log) {
    if (!isObject(entry)) throw invalidFile(path, 'a log entry is not an object');
  }
}
