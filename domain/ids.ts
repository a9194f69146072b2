import { hasNode } from './node-map.js';
import { DomainError } from './errors.js';
import type { Graph, NodeId, NodeType } from './model.js';

const PREFIX: Record<NodeType, string> = { task: 'T-', gate: 'G-', knowledge: 'K-' };
const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A project id: 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit (a safe directory name). */
export function isProjectId(value: unknown): value is string {
  return typeof value === 'string' && PROJECT_ID.test(value);
}
const ATTEMPTS = 16;

/** The 8 random characters after a generated id's prefix; ids and randomness come from outside. */
export type SuffixSource = () => string;

export function isValidNodeId(id: string): boolean {
  return NODE_ID.test(id);
}

export function assertValidNodeId(id: string): void {
  if (!isValidNodeId(id)) {
    throw new DomainError(
      'INVALID_ARGUMENT',
      'A node id is 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
      { id },
    );
  }
}

/** The id a new node gets: the one asked for (which must be free), or a fresh `T-`/`G-`/`K-` id. */
export function allocateNodeId(graph: Graph, type: NodeType, requested: NodeId | undefined, suffix: SuffixSource): NodeId {
  if (requested !== undefined) {
    assertValidNodeId(requested);
    if (hasNode(graph, requested)) {
      throw new DomainError('ID_CONFLICT', `A node with id ${requested} already exists`, { id: requested });
    }
    return requested;
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const id = PREFIX[type] + suffix();
    if (!hasNode(graph, id)) return id;
  }
  throw new DomainError('ID_CONFLICT', `Could not find a free ${type} id`, { type });
}
