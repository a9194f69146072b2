import { hasNode, nodeOf } from './node-map.js';
import { DomainError } from './errors.js';
import type { GraphIndex } from './graph-index.js';
import { EDGE_TYPES, nodeType, type Edge, type EdgeType, type Graph, type NodeId } from './model.js';

export function isEdgeType(value: unknown): value is EdgeType {
  return typeof value === 'string' && (EDGE_TYPES as readonly string[]).includes(value);
}

export function parseEdgeType(value: unknown): EdgeType {
  if (!isEdgeType(value)) {
    throw new DomainError('INVALID_EDGE_TYPE', `Edge type must be one of ${EDGE_TYPES.join(', ')}`, {
      type: value ?? null,
      allowed: [...EDGE_TYPES],
    });
  }
  return value;
}

export function sameEdge(a: Edge, b: Edge): boolean {
  return a.from === b.from && a.to === b.to && a.type === b.type;
}

/** Checks every rule of spec 2.3 for an edge about to be added; throws the first one broken. */
export function assertEdgeAllowed(graph: Graph, index: GraphIndex, edge: Edge): void {
  parseEdgeType(edge.type);
  if (edge.from === edge.to) {
    throw new DomainError('SELF_EDGE', `A node cannot have an edge to itself (${edge.from})`, { ...edge });
  }
  for (const end of [edge.from, edge.to]) {
    if (!hasNode(graph, end)) {
      throw new DomainError('INVALID_EDGE_TARGET', `Edge endpoint ${end} does not exist`, { ...edge, missing: end });
    }
  }
  assertEndpointKinds(graph, edge);
  if (index.outOf(edge.from, edge.type).some((existing) => existing.to === edge.to)) {
    throw new DomainError('DUPLICATE_EDGE', `The edge ${edge.from} -${edge.type}-> ${edge.to} already exists`, { ...edge });
  }
  if (edge.type === 'BLOCKS') {
    const cycle = pathBetween(index, edge.to, edge.from, 'BLOCKS');
    if (cycle) {
      throw new DomainError('CYCLE_DETECTED', `${edge.from} BLOCKS ${edge.to} would close a cycle`, {
        ...edge,
        cycle: [edge.from, ...cycle],
      });
    }
  }
}

function assertEndpointKinds(graph: Graph, edge: Edge): void {
  const from = nodeOf(graph, edge.from)!;
  const to = nodeOf(graph, edge.to)!;
  if (edge.type === 'BLOCKS' && (from.kind !== 'resolvable' || to.kind !== 'resolvable')) {
    throw new DomainError('INVALID_EDGE_KIND', 'Both ends of a BLOCKS edge must be tasks or gates', {
      ...edge,
      from_type: nodeType(from),
      to_type: nodeType(to),
    });
  }
  if (edge.type === 'SUPERSEDES' && nodeType(from) !== nodeType(to)) {
    throw new DomainError('INVALID_EDGE_KIND', 'Both ends of a SUPERSEDES edge must be of the same type', {
      ...edge,
      from_type: nodeType(from),
      to_type: nodeType(to),
    });
  }
}

/** A path `start … goal` along edges of `type`, or null; iterative so deep chains cannot overflow. */
function pathBetween(index: GraphIndex, start: NodeId, goal: NodeId, type: EdgeType): NodeId[] | null {
  const cameFrom = new Map<NodeId, NodeId | null>([[start, null]]);
  const stack = [start];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (current === goal) return unwind(cameFrom, goal);
    for (const edge of index.outOf(current, type)) {
      if (!cameFrom.has(edge.to)) {
        cameFrom.set(edge.to, current);
        stack.push(edge.to);
      }
    }
  }
  return null;
}

function unwind(cameFrom: Map<NodeId, NodeId | null>, goal: NodeId): NodeId[] {
  const path: NodeId[] = [];
  for (let at: NodeId | null | undefined = goal; at; at = cameFrom.get(at)) path.unshift(at);
  return path;
}
