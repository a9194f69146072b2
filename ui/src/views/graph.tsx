import dagre from '@dagrejs/dagre';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { neighbourhood, type EdgeIndex } from '../board-model';
import { blockedChain, criticalPath, curveThrough } from '../graph-model';
import { navigate, nodeHref, projectHref } from '../routes';
import type { Edge, NodeSummary, Snapshot } from '../types';
import { StatusBadge } from './common';
import { useViewport } from './viewport';

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
 * (open gates, ready and in-progress tasks) when it is not. Edges follow the layout's routes as
 * curves with arrowheads; one colour per status, with a legend; the full title on hover; zoom, pan
 * and fit. The critical path is always marked; a click selects a node and marks its blocked chain
 * (what it waits on, what waits on it), a second click opens it.
 */
export function GraphView({ snapshot, edges, query }: { snapshot: Snapshot; edges: EdgeIndex; query: URLSearchParams }) {
  const focus = query.get('focus');
  const initiative = query.get('initiative');
  const radius = Math.min(4, Math.max(1, Number(query.get('radius') ?? 2) || 2));
  const byId = useMemo(() => new Map(snapshot.nodes.map((node) => [node.id, node])), [snapshot]);
  const { ids, total, scope } = useMemo(() => chooseNodes(snapshot, edges, byId, focus, initiative, radius), [snapshot, edges, focus, initiative, radius]);
  const drawn = useMemo(() => layOut(ids, byId, edges), [ids, byId, edges]);
  const critical = useMemo(() => criticalPath(snapshot.nodes, edges, byId), [snapshot, edges, byId]);
  const [selected, setSelected] = useState<string | null>(focus);
  useEffect(() => setSelected(focus), [focus]);
  const chain = useMemo(() => (selected && byId.has(selected) ? blockedChain(selected, edges, byId) : null), [selected, edges, byId]);
  const viewport = useViewport(drawn.width, drawn.height);
  const setQuery = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    navigate(projectHref(snapshot.project, 'graph', next), true);
  };
  const criticalNext = new Map(critical.slice(0, -1).map((id, index) => [id, critical[index + 1]!]));
  const onCritical = new Set(critical);
  const inChain = (id: string) => id === selected || (chain !== null && (chain.upstream.has(id) || chain.downstream.has(id)));
  const statuses = [...new Set(drawn.nodes.map(({ node }) => node.status))].sort((a, b) => STATUS_ORDER.indexOf(a) - STATUS_ORDER.indexOf(b));
  const selectedNode = selected ? byId.get(selected) : undefined;
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
        <div class="zoom" role="group" aria-label="Zoom">
          <button type="button" name="zoom-in" onClick={viewport.zoomIn} title="Zoom in (+)">
            +
          </button>
          <button type="button" name="zoom-out" onClick={viewport.zoomOut} title="Zoom out (−)">
            −
          </button>
          <button type="button" name="fit" onClick={viewport.fit} title="Fit the whole graph (0)">
            Fit
          </button>
          <span class="count" data-scale={viewport.view.scale.toFixed(3)}>
            {Math.round(viewport.view.scale * 100)}%
          </span>
        </div>
      </form>
      <p class="graph-scope" data-drawn={ids.length} data-total={total}>
        {scope} · <span class="count">{ids.length === total ? `${total} nodes` : `${ids.length} of ${total} nodes`}</span>
        {ids.length < total && !focus ? ' drawn: pick an initiative or focus on a node to see the rest' : null}
      </p>
      {focus && !byId.has(focus) ? <p class="error">No node {focus} in this project.</p> : null}
      <Legend statuses={statuses} critical={critical.length} />
      {selectedNode && chain ? (
        <p class="selection" data-selected={selectedNode.id}>
          Selected <StatusBadge status={selectedNode.status} /> <span class="node-id">{selectedNode.id}</span> {selectedNode.title}: waits on{' '}
          <span data-upstream={chain.upstream.size}>{chain.upstream.size}</span>, {chain.downstream.size} wait on it.{' '}
          <a href={nodeHref(snapshot.project, selectedNode.id)}>Open {selectedNode.id}</a>{' '}
          <button type="button" onClick={() => setSelected(null)}>
            Clear
          </button>
        </p>
      ) : (
        <p class="selection hint">Click a node to highlight what it waits on and what waits on it; click it again to open it.</p>
      )}
      <div
        class={`graph-canvas${chain ? ' has-selection' : ''}`}
        ref={viewport.canvas}
        tabIndex={0}
        role="region"
        aria-label="Dependency graph: drag or arrow keys to pan, wheel or + and − to zoom, 0 to fit"
        onKeyDown={(event) => keyOnCanvas(event, viewport, () => setSelected(null))}
        {...viewport.handlers}
      >
        <svg width="100%" height="100%" role="group" aria-label={`Dependency graph, ${ids.length} nodes`}>
          <defs>
            {['arrow', 'arrow-critical', 'arrow-chain'].map((id) => (
              <marker id={id} class={id} viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" />
              </marker>
            ))}
          </defs>
          <g class="scene" transform={`translate(${viewport.view.x} ${viewport.view.y}) scale(${viewport.view.scale})`}>
            {drawn.edges.map(({ edge, points }) => {
              const isCritical = criticalNext.get(edge.from) === edge.to;
              const isChain = chain !== null && edge.type !== 'DERIVED_FROM' && inChain(edge.from) && inChain(edge.to);
              const marker = isChain ? 'arrow-chain' : isCritical ? 'arrow-critical' : 'arrow';
              return (
                <path
                  class={`edge edge-${edge.type}${isCritical ? ' critical' : ''}${isChain ? ' chain' : ''}`}
                  data-from={edge.from}
                  data-to={edge.to}
                  d={curveThrough(points)}
                  marker-end={`url(#${marker})`}
                />
              );
            })}
            {drawn.nodes.map(({ node, x, y }) => (
              <a
                href={nodeHref(snapshot.project, node.id)}
                class={nodeClass(node, node.id === focus, onCritical.has(node.id), selected, chain)}
                data-node={node.id}
                onClick={(event) => {
                  if (selected === node.id) return;
                  event.preventDefault();
                  setSelected(node.id);
                }}
              >
                <title>{`${node.id} · ${node.status.replace('_', ' ')}\n${node.title}`}</title>
                <rect class="halo" x={x - WIDTH / 2 - 4} y={y - HEIGHT / 2 - 4} width={WIDTH + 8} height={HEIGHT + 8} rx={node.type === 'gate' ? 18 : 7} />
                <rect class="box" x={x - WIDTH / 2} y={y - HEIGHT / 2} width={WIDTH} height={HEIGHT} rx={node.type === 'gate' ? 14 : 4} />
                <text x={x - WIDTH / 2 + 8} y={y - 6}>
                  {node.id} · {node.status.replace('_', ' ')}
                </text>
                <text x={x - WIDTH / 2 + 8} y={y + 12} class="title">
                  {node.title.length > 28 ? `${node.title.slice(0, 27)}…` : node.title}
                </text>
              </a>
            ))}
          </g>
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

/** Every status a node can show, in the order of the legend: tasks as work moves, then gates, then knowledge. */
const STATUS_ORDER = ['ready', 'in_progress', 'submitted', 'blocked', 'backlog', 'done', 'archived', 'canceled', 'open', 'resolved', 'superseded', 'active', 'deprecated'];

function Legend({ statuses, critical }: { statuses: string[]; critical: number }) {
  return (
    <ul class="legend" aria-label="Legend">
      {statuses.map((status) => (
        <li data-legend={status}>
          <span class={`swatch status-${status}`} aria-hidden="true" /> {status.replace('_', ' ')}
        </li>
      ))}
      <li data-legend="critical">
        <span class="swatch-line critical" aria-hidden="true" /> critical path{critical > 0 ? ` (${critical} steps)` : ': none'}
      </li>
      <li data-legend="chain">
        <span class="swatch-line chain" aria-hidden="true" /> selected node's blocked chain
      </li>
      <li data-legend="supersedes">
        <span class="swatch-line supersedes" aria-hidden="true" /> supersedes
      </li>
    </ul>
  );
}

function nodeClass(node: NodeSummary, focused: boolean, critical: boolean, selected: string | null, chain: { upstream: Set<string>; downstream: Set<string> } | null): string {
  const classes = ['graph-node', `status-${node.status}`, `type-${node.type}`];
  if (focused) classes.push('focused');
  if (critical) classes.push('critical');
  if (node.id === selected) classes.push('selected');
  else if (chain?.upstream.has(node.id)) classes.push('chain', 'upstream');
  else if (chain?.downstream.has(node.id)) classes.push('chain', 'downstream');
  return classes.join(' ');
}

const PAN_STEP = 80;

function keyOnCanvas(event: KeyboardEvent, viewport: ReturnType<typeof useViewport>, clear: () => void): void {
  const actions: Record<string, () => void> = {
    '+': viewport.zoomIn,
    '=': viewport.zoomIn,
    '-': viewport.zoomOut,
    '0': viewport.fit,
    ArrowLeft: () => viewport.panBy(PAN_STEP, 0),
    ArrowRight: () => viewport.panBy(-PAN_STEP, 0),
    ArrowUp: () => viewport.panBy(0, PAN_STEP),
    ArrowDown: () => viewport.panBy(0, -PAN_STEP),
    Escape: clear,
  };
  const action = actions[event.key];
  if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
  event.preventDefault();
  action();
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
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 70, marginx: 12, marginy: 12 });
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
  // Every box of a rank shares its x (same width): the columns an edge may cross level.
  const columns = new Set(ids.map((id) => Math.round(graph.node(id).x)));
  return {
    nodes: ids.map((id) => {
      const { x, y } = graph.node(id);
      return { node: byId.get(id)!, x, y };
    }),
    edges: shown.map((edge) => {
      const name = `${edge.type}:${edge.from}:${edge.to}`;
      const [v, w] = edge.type === 'SUPERSEDES' ? [edge.to, edge.from] : [edge.from, edge.to];
      return { edge, points: throughPorts(graph.edge({ v, w, name }).points ?? [], graph.node(v), graph.node(w), columns) };
    }),
    width: Math.max(200, label.width ?? 200),
    height: Math.max(100, label.height ?? 100),
  };
}

/**
 * The layout's route as waypoints that keep out of every box. dagre ends an edge where the line
 * to its first bend leaves the box (for a bend far above or below, the top or bottom side, so the
 * first stretch runs down the column through the boxes there) and bends at the middle of each
 * column it crosses. Here the edge leaves and enters on the boxes' facing sides, crosses each
 * column level at the height dagre kept free for it, and changes height only in the gaps
 * between columns (curveThrough draws it so).
 */
function throughPorts(points: { x: number; y: number }[], from: { x: number; y: number }, to: { x: number; y: number }, columns: Set<number>): { x: number; y: number }[] {
  const direction = to.x >= from.x ? 1 : -1;
  const route = [{ x: from.x + (direction * WIDTH) / 2, y: from.y }];
  for (const point of points.slice(1, -1)) {
    if (!columns.has(Math.round(point.x))) continue;
    route.push({ x: point.x - (direction * WIDTH) / 2, y: point.y }, { x: point.x + (direction * WIDTH) / 2, y: point.y });
  }
  route.push({ x: to.x - (direction * WIDTH) / 2, y: to.y });
  return route;
}
