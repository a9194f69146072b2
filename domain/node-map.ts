import { LAZY_COLLECTION, type Edge, type EdgeList, type Edges, type GraphNode, type NodeId, type NodeMap, type Nodes } from './model.js';

export { LAZY_COLLECTION, type EdgeList, type Edges, type NodeMap, type Nodes };

interface WithNodes {
  nodes: Nodes;
}
interface WithEdges {
  edges: Edges;
}

// A graph shaped wrong (a tool writing a damaged file on purpose) may lack either collection.
function isNodeMap(nodes: Nodes): nodes is NodeMap {
  return typeof nodes === 'object' && nodes !== null && (nodes as Partial<NodeMap>)[LAZY_COLLECTION] === 'nodes';
}

function isEdgeList(edges: Edges): edges is EdgeList {
  return typeof edges === 'object' && edges !== null && (edges as Partial<EdgeList>)[LAZY_COLLECTION] === 'edges';
}

/** Node `id` of `graph`, or undefined (never a member inherited by a record, such as `constructor`). */
export function nodeOf(graph: WithNodes, id: NodeId): GraphNode | undefined {
  const { nodes } = graph;
  if (isNodeMap(nodes)) return nodes.get(id);
  return Object.hasOwn(nodes, id) ? nodes[id] : undefined;
}

/** Node `id`'s JSON as its store holds it, when it has not been read yet (NodeMap.storedText); undefined otherwise. */
export function storedText(graph: WithNodes, id: NodeId): string | undefined {
  const { nodes } = graph;
  return isNodeMap(nodes) ? nodes.storedText?.(id) : undefined;
}

export function hasNode(graph: WithNodes, id: NodeId): boolean {
  const { nodes } = graph;
  return isNodeMap(nodes) ? nodes.has(id) : Object.hasOwn(nodes, id);
}

export function setNode(graph: WithNodes, id: NodeId, node: GraphNode): void {
  const { nodes } = graph;
  if (isNodeMap(nodes)) nodes.set(id, node);
  else nodes[id] = node;
}

export function deleteNode(graph: WithNodes, id: NodeId): void {
  const { nodes } = graph;
  if (isNodeMap(nodes)) nodes.delete(id);
  else delete nodes[id];
}

/** Every node id, in the graph's order. */
export function nodeIds(graph: WithNodes): NodeId[] {
  const { nodes } = graph;
  return isNodeMap(nodes) ? nodes.ids() : Object.keys(nodes);
}

export function nodeCount(graph: WithNodes): number {
  const { nodes } = graph;
  return isNodeMap(nodes) ? nodes.size : Object.keys(nodes).length;
}

/** Every node, in the graph's order (a NodeMap reads them all). */
export function allNodes(graph: WithNodes): GraphNode[] {
  const { nodes } = graph;
  return isNodeMap(nodes) ? nodes.ids().map((id) => nodes.get(id)!) : Object.values(nodes);
}

/** The nodes as a plain record, every node read: for an answer or a copy that must be plain data. */
export function plainNodes(graph: WithNodes): Record<NodeId, GraphNode> {
  const { nodes } = graph;
  if (!isNodeMap(nodes)) return { ...nodes };
  const plain: Record<NodeId, GraphNode> = {};
  for (const id of nodes.ids()) plain[id] = nodes.get(id)!;
  return plain;
}

/** `graph` with its nodes and edges as plain data (every node read): for an answer, a copy, an encoding. */
export function plainGraph<T extends WithNodes & WithEdges>(graph: T): T & { nodes: Record<NodeId, GraphNode>; edges: Edge[] } {
  return { ...graph, nodes: plainNodes(graph), edges: edgesOf(graph) };
}

/** The graph's edges as the list itself (an EdgeList reads them now): changes to it are the graph's. */
export function edgesOf(graph: WithEdges): Edge[] {
  const { edges } = graph;
  return isEdgeList(edges) ? edges.all() : edges;
}

/** Appends `edge` to the graph's edges (an EdgeList not read yet stays unread). */
export function appendEdge(graph: WithEdges, edge: Edge): void {
  const { edges } = graph;
  if (isEdgeList(edges)) edges.push(edge);
  else edges.push(edge);
}
