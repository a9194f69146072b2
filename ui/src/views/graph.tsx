import dagre from '@dagrejs/dagre';
import { useMemo } from 'preact/hooks';
import { neighbourhood, type EdgeIndex } from '../board-model';
import { navigate, nodeHref, projectHref } from '../routes';
import type { Edge, NodeSummary, Snapshot } from '../types';

/** Past this many nodes the graph draws a neighbourhood, never the whole project. */
export const GRAPH_LIMIT = 200;
const WIDTH = 190;
const HEIGHT = 46;

interface Drawn {
  nodes: { node: NodeSummary; x: number; y: number }[];
  edges: { edge: Edge; points: { x: number; y: number }[] }[];
  width: number;
  height: number;
}

/**
 * The dependency graph, laid out by dagre (left to right, blockers before what they block):
 * the neighbourhood of `?focus=<node>` (radius `?radius=`, default 2), an initiative's nodes
 * (`?initiative=`), or, without either, the whole project when it is small and its live work
 * (open gates, ready and in-progress tasks) when it is not. Colours are statuses; superseded
 * gates are dashed; a click opens the node.
 */
export function GraphView({ snapshot, edges, query }: { snapshot: Snapshot; edges: EdgeIndex; query: URLSearchParams }) {
  const focus = query.get('focus');
  const initiative = query.get('initiative');
  const radius = Math.min(4, Math.max(1, Number(query.get('radius') ?? 2) || 2));
  const byId = useMemo(() => new Map(snapshot.nodes.map((node) => [node.id, node])), [snapshot]);
  const { ids, total, scope } = useMemo(() => chooseNodes(snapshot, edges, byId, focus, initiative, radius), [snapshot, edges, focus, initiative, radius]);
  const drawn = useMemo(() => layOut(ids, byId, edges), [ids, byId, edges]);
  const setQuery = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    navigate(projectHref(snapshot.project, 'graph', next), true);
  };
  return (
    <section class="graph">
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Initiative
          <select name="initiative" value={initiative ?? ''} onChange={(event) => setQuery({ initiative: (event.target as HTMLSelectElement).value, focus: null })}>
            <option value="">any</option>
            {snapshot.initiatives.map((item) => (
              <option value={item.name}>{item.name}</option>
            ))}
          </select>
        </label>
        <label>
          Focus on node
          <input name="focus" list="graph-node-ids" value={focus ?? ''} onChange={(event) => setQuery({ focus: (event.target as HTMLInputElement).value, initiative: null })} />
        </label>
        <label>
          Radius
          <select name="radius" value={String(radius)} onChange={(event) => setQuery({ radius: (event.target as HTMLSelectElement).value })}>
            {[1, 2, 3, 4].map((value) => (
              <option value={String(value)}>{value}</option>
            ))}
          </select>
        </label>
      </form>
      <p class="graph-scope" data-drawn={ids.length} data-total={total}>
        {scope} · <span class="count">{ids.length === total ? `${total} nodes` : `${ids.length} of ${total} nodes`}</span>
        {ids.length < total && !focus ? ' drawn: pick an initiative or focus on a node to see the rest' : null}
      </p>
      {focus && !byId.has(focus) ? <p class="error">No node {focus} in this project.</p> : null}
      <div class="graph-canvas">
        <svg width={drawn.width} height={drawn.height} viewBox={`0 0 ${drawn.width} ${drawn.height}`} role="img" aria-label="Dependency graph">
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" />
            </marker>
          </defs>
          {drawn.edges.map(({ edge, points }) => (
            <path class={`edge edge-${edge.type}`} d={`M ${points.map((point) => `${point.x} ${point.y}`).join(' L ')}`} marker-end="url(#arrow)" />
          ))}
          {drawn.nodes.map(({ node, x, y }) => (
            <a href={nodeHref(snapshot.project, node.id)} class={`graph-node status-${node.status} type-${node.type}${node.id === focus ? ' focused' : ''}`} data-node={node.id}>
              <rect x={x - WIDTH / 2} y={y - HEIGHT / 2} width={WIDTH} height={HEIGHT} rx={node.type === 'gate' ? 14 : 4} />
              <text x={x - WIDTH / 2 + 8} y={y - 6}>
                {node.id} · {node.status.replace('_', ' ')}
              </text>
              <text x={x - WIDTH / 2 + 8} y={y + 12} class="title">
                {node.title.length > 26 ? `${node.title.slice(0, 25)}…` : node.title}
              </text>
            </a>
          ))}
        </svg>
      </div>
      <datalist id="graph-node-ids">
        {snapshot.nodes.slice(0, 500).map((node) => (
          <option value={node.id} />
        ))}
      </datalist>
    </section>
  );
}

function chooseNodes(snapshot: Snapshot, edges: EdgeIndex, byId: Map<string, NodeSummary>, focus: string | null, initiative: string | null, radius: number) {
  if (focus && byId.has(focus)) {
    const reach = neighbourhood(focus, edges, radius, Number.POSITIVE_INFINITY);
    return { ids: reach.slice(0, GRAPH_LIMIT), total: reach.length, scope: `Within ${radius} edges of ${focus}` };
  }
  if (initiative) {
    const members = snapshot.nodes.filter((node) => node.initiative === initiative).map((node) => node.id);
    return { ids: members.slice(0, GRAPH_LIMIT), total: members.length, scope: `Initiative ${initiative}` };
  }
  if (snapshot.nodes.length <= GRAPH_LIMIT) return { ids: snapshot.nodes.map((node) => node.id), total: snapshot.nodes.length, scope: 'Whole project' };
  const live = snapshot.nodes.filter((node) => (node.type === 'gate' && node.status === 'open') || node.status === 'ready' || node.status === 'in_progress');
  return { ids: live.slice(0, GRAPH_LIMIT).map((node) => node.id), total: snapshot.nodes.length, scope: 'Open gates, ready and in-progress tasks' };
}

function layOut(ids: string[], byId: Map<string, NodeSummary>, edges: EdgeIndex): Drawn {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'LR', nodesep: 16, ranksep: 60, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const drawn = new Set(ids);
  for (const id of ids) graph.setNode(id, { width: WIDTH, height: HEIGHT });
  const shown: Edge[] = [];
  for (const id of ids) {
    for (const edge of edges.outOf(id)) {
      if (!drawn.has(edge.to)) continue;
      shown.push(edge);
      // A successor supersedes its predecessor: drawn predecessor first, as time runs.
      if (edge.type === 'SUPERSEDES') graph.setEdge(edge.to, edge.from, {}, `${edge.type}:${edge.from}:${edge.to}`);
      else graph.setEdge(edge.from, edge.to, {}, `${edge.type}:${edge.from}:${edge.to}`);
    }
  }
  dagre.layout(graph);
  const label = graph.graph();
  return {
    nodes: ids.map((id) => {
      const { x, y } = graph.node(id);
      return { node: byId.get(id)!, x, y };
    }),
    edges: shown.map((edge) => {
      const name = `${edge.type}:${edge.from}:${edge.to}`;
      const [v, w] = edge.type === 'SUPERSEDES' ? [edge.to, edge.from] : [edge.from, edge.to];
      return { edge, points: graph.edge({ v, w, name }).points ?? [] };
    }),
    width: Math.max(200, label.width ?? 200),
    height: Math.max(100, label.height ?? 100),
  };
}
