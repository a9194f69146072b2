import type { Edge, NodeSummary, Snapshot } from './types';

/** The task columns, in the order work moves through them (spec issue 13). */
export const COLUMNS = [
  { key: 'ready', title: 'Ready', statuses: ['ready'] },
  { key: 'in_progress', title: 'In progress', statuses: ['in_progress'] },
  { key: 'submitted', title: 'Submitted', statuses: ['submitted'] },
  { key: 'blocked', title: 'Blocked', statuses: ['blocked'] },
  { key: 'backlog', title: 'Backlog', statuses: ['backlog'] },
  { key: 'done', title: 'Done', statuses: ['done', 'archived', 'canceled'] },
] as const;

export const FILTER_KEYS = ['initiative', 'domain', 'tag', 'holder', 'status', 'q'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export function filtersOf(query: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = query.get(key);
    if (value) filters[key] = value;
  }
  return filters;
}

export function matches(node: NodeSummary, filters: Filters): boolean {
  if (filters.initiative && node.initiative !== filters.initiative) return false;
  if (filters.domain && node.domain !== filters.domain) return false;
  if (filters.tag && !node.tags.includes(filters.tag)) return false;
  if (filters.holder && node.claim?.by !== filters.holder) return false;
  if (filters.status && node.status !== filters.status) return false;
  if (filters.q) {
    const needle = filters.q.toLowerCase();
    const haystack = [node.id, node.title, node.initiative, node.domain ?? '', ...node.tags].join('\n').toLowerCase();
    if (!haystack.includes(needle)) return false;
  }
  return true;
}

/** What the filter menus offer: the values the project's nodes carry, sorted. */
export function filterChoices(snapshot: Snapshot): Record<Exclude<FilterKey, 'q'>, string[]> {
  const sets = { initiative: new Set<string>(), domain: new Set<string>(), tag: new Set<string>(), holder: new Set<string>(), status: new Set<string>() };
  for (const initiative of snapshot.initiatives) sets.initiative.add(initiative.name);
  for (const node of snapshot.nodes) {
    sets.initiative.add(node.initiative);
    if (node.domain) sets.domain.add(node.domain);
    for (const tag of node.tags) sets.tag.add(tag);
    if (node.claim) sets.holder.add(node.claim.by);
    sets.status.add(node.status);
  }
  const sorted = (set: Set<string>) => [...set].sort();
  return { initiative: sorted(sets.initiative), domain: sorted(sets.domain), tag: sorted(sets.tag), holder: sorted(sets.holder), status: sorted(sets.status) };
}

/** The graph's edges by endpoint, built once per snapshot. */
export class EdgeIndex {
  private readonly out = new Map<string, Edge[]>();
  private readonly in = new Map<string, Edge[]>();

  constructor(edges: Edge[]) {
    for (const edge of edges) {
      push(this.out, edge.from, edge);
      push(this.in, edge.to, edge);
    }
  }

  outOf(id: string, type?: Edge['type']): Edge[] {
    const edges = this.out.get(id) ?? [];
    return type ? edges.filter((edge) => edge.type === type) : edges;
  }

  into(id: string, type?: Edge['type']): Edge[] {
    const edges = this.in.get(id) ?? [];
    return type ? edges.filter((edge) => edge.type === type) : edges;
  }
}

function push(map: Map<string, Edge[]>, key: string, edge: Edge): void {
  const list = map.get(key);
  if (list) list.push(edge);
  else map.set(key, [edge]);
}

/**
 * What a gate holds up: what it blocks, and what the gates it supersedes (down the chain) still
 * block, since those wait on it through the supersede chain.
 */
export function heldUpBy(gate: string, edges: EdgeIndex): string[] {
  const held = new Set<string>();
  const seen = new Set([gate]);
  for (const id of seen) {
    for (const edge of edges.outOf(id, 'BLOCKS')) held.add(edge.to);
    for (const edge of edges.outOf(id, 'SUPERSEDES')) seen.add(edge.to);
  }
  return [...held];
}

/**
 * Ready work, what to pick up next first: the tasks whose completion frees the most waiting
 * tasks come first, then the oldest.
 */
export function readyFirst(ready: NodeSummary[], edges: EdgeIndex): { node: NodeSummary; unblocks: number }[] {
  return ready
    .map((node, age) => ({ node, age, unblocks: edges.outOf(node.id, 'BLOCKS').length }))
    .sort((a, b) => b.unblocks - a.unblocks || a.age - b.age)
    .map(({ node, unblocks }) => ({ node, unblocks }));
}

/** The nodes within `radius` edges of `center`, either direction, any edge type; the center first. */
export function neighbourhood(center: string, edges: EdgeIndex, radius: number, limit: number): string[] {
  const found = [center];
  const seen = new Set(found);
  let frontier = [center];
  for (let step = 0; step < radius && frontier.length > 0; step++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const edge of [...edges.outOf(id), ...edges.into(id)]) {
        const other = edge.from === id ? edge.to : edge.from;
        if (seen.has(other)) continue;
        if (found.length >= limit) return found;
        seen.add(other);
        found.push(other);
        next.push(other);
      }
    }
    frontier = next;
  }
  return found;
}

/** How long ago `at` was, for a claim's age: "5 s", "12 min", "3 h", "2 d". */
export function ageOf(at: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}
