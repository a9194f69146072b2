import type { EdgeIndex } from './board-model';
import type { NodeSummary } from './types';

/** Statuses whose BLOCKS edges are satisfied (domain/status.ts isBlockerSatisfied). */
const SATISFYING = new Set(['done', 'archived', 'resolved']);

/**
 * What `id` waits on now, as domain/status.ts sees it: its blockers that are not satisfied, and,
 * for a superseded gate, the successors that carry its decision (new -SUPERSEDES-> old).
 */
export function waitsOn(id: string, edges: EdgeIndex, byId: Map<string, NodeSummary>): string[] {
  const waits: string[] = [];
  for (const edge of edges.into(id, 'BLOCKS')) if (!isSatisfied(edge.from, edges, byId)) waits.push(edge.from);
  if (byId.get(id)?.status === 'superseded') for (const edge of edges.into(id, 'SUPERSEDES')) if (!isSatisfied(edge.from, edges, byId)) waits.push(edge.from);
  return waits;
}

/** A blocker is satisfied when done, archived or resolved, or superseded by a chain ending in a resolved gate. */
function isSatisfied(id: string, edges: EdgeIndex, byId: Map<string, NodeSummary>): boolean {
  const pending = [id];
  const seen = new Set<string>();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const status = byId.get(next)?.status;
    if (status !== undefined && SATISFYING.has(status)) return true;
    if (status !== 'superseded' || seen.has(next)) continue;
    seen.add(next);
    for (const edge of edges.into(next, 'SUPERSEDES')) pending.push(edge.from);
  }
  return false;
}

/**
 * The critical path: the longest chain of unfinished work, each node waiting on the one before
 * it, first blocker first. Its length is how many steps, at best, the last of it is away from
 * ready, so it is what to shorten. Walked with a stack (chains can be thousands long), once per
 * snapshot: linear in nodes and edges.
 */
export function criticalPath(nodes: NodeSummary[], edges: EdgeIndex, byId: Map<string, NodeSummary>): string[] {
  const depth = new Map<string, number>();
  const via = new Map<string, string>();
  const onStack = new Set<string>();
  for (const root of nodes) {
    if (depth.has(root.id) || !waitsOnAnything(root)) continue;
    const stack = [root.id];
    while (stack.length > 0) {
      const id = stack[stack.length - 1]!;
      if (depth.has(id)) {
        stack.pop();
        continue;
      }
      const blockers = waitsOn(id, edges, byId);
      const todo = blockers.filter((blocker) => !depth.has(blocker) && !onStack.has(blocker));
      if (todo.length > 0 && !onStack.has(id)) {
        onStack.add(id);
        stack.push(...todo);
        continue;
      }
      onStack.delete(id);
      let best = 0;
      for (const blocker of blockers) {
        const reach = depth.get(blocker) ?? 0;
        if (reach > best) {
          best = reach;
          via.set(id, blocker);
        }
      }
      depth.set(id, best + 1);
      stack.pop();
    }
  }
  let end: string | null = null;
  for (const [id, reach] of depth) if (end === null || reach > depth.get(end)!) end = id;
  if (end === null || depth.get(end)! < 2) return [];
  const path = [end];
  for (let step = via.get(end); step !== undefined; step = via.get(step)) path.push(step);
  return path.reverse();
}

function waitsOnAnything(node: NodeSummary): boolean {
  return node.type !== 'knowledge' && !SATISFYING.has(node.status);
}

/**
 * A selected node's blocked chain: everything it waits on, transitively (`upstream`), and
 * everything that waits on it, transitively (`downstream`).
 */
export function blockedChain(id: string, edges: EdgeIndex, byId: Map<string, NodeSummary>): { upstream: Set<string>; downstream: Set<string> } {
  const upstream = new Set<string>();
  for (const frontier = [id]; frontier.length > 0; ) {
    for (const blocker of waitsOn(frontier.pop()!, edges, byId)) {
      if (upstream.has(blocker) || blocker === id) continue;
      upstream.add(blocker);
      frontier.push(blocker);
    }
  }
  const downstream = new Set<string>();
  for (const frontier = [id]; frontier.length > 0; ) {
    const current = frontier.pop()!;
    const waiting = [...edges.outOf(current, 'BLOCKS').map((edge) => edge.to), ...(byId.get(current)?.type === 'gate' ? edges.outOf(current, 'SUPERSEDES').map((edge) => edge.to) : [])];
    for (const next of waiting) {
      if (downstream.has(next) || next === id) continue;
      downstream.add(next);
      frontier.push(next);
    }
  }
  return { upstream, downstream };
}

/**
 * An SVG path through waypoints that alternate between crossing a column of boxes (same height:
 * a straight line) and crossing the gap between two columns (a curve leaving and arriving level,
 * its bend inside the gap, where no box is).
 */
export function curveThrough(points: { x: number; y: number }[]): string {
  const round = (value: number) => Math.round(value * 10) / 10;
  if (points.length === 0) return '';
  let d = `M${round(points[0]!.x)},${round(points[0]!.y)}`;
  for (let index = 1; index < points.length; index++) {
    const [from, to] = [points[index - 1]!, points[index]!];
    if (Math.abs(from.y - to.y) < 0.5) d += `L${round(to.x)},${round(to.y)}`;
    else {
      const middle = round((from.x + to.x) / 2);
      d += `C${middle},${round(from.y)} ${middle},${round(to.y)} ${round(to.x)},${round(to.y)}`;
    }
  }
  return d;
}
