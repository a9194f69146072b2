import { nodeOf } from './node-map.js';
import type { GraphView } from './graph-view.js';
import { isGate, type Edge, type NodeId, type NodeType } from './model.js';
import type { Blockers } from './node-summary.js';
import { isBlockerSatisfied } from './status.js';

/** How many ids each list of `Blockers` names; its count says how many there are in all. */
export const BLOCKER_LIST_LIMIT = 10;

/**
 * Finds the blockers of nodes of one graph. What a node waits on is worked out once and shared
 * by every node asked about (a `status` answer lists many blocked tasks that wait on the same
 * chains), so the cost follows the part of the graph above the nodes asked about.
 */
export class BlockerFinder {
  private readonly waits = new Map<NodeId, NodeId[]>();

  constructor(private readonly view: GraphView) {}

  /** What node `id` waits on; `type`, when the caller knows it, spares reading the node to see whether it is a gate. */
  of(id: NodeId, type?: NodeType): Blockers {
    const direct = this.waitsOn(id, type);
    const roots: NodeId[] = [];
    const seen = new Set<NodeId>(direct);
    // Walked with a stack, not recursion: a chain of blockers can be thousands long.
    const pending = [...direct];
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      const above = this.waitsOn(node);
      if (above.length === 0) roots.push(node);
      for (const next of above) {
        if (seen.has(next)) continue;
        seen.add(next);
        pending.push(next);
      }
    }
    const directSorted = sortedIds(direct);
    const rootsSorted = sortedIds(roots);
    return { direct: directSorted.slice(0, BLOCKER_LIST_LIMIT), direct_count: directSorted.length, open_roots: rootsSorted.slice(0, BLOCKER_LIST_LIMIT), open_roots_count: rootsSorted.length };
  }

  /**
   * What `id` waits on directly: its blockers whose BLOCKS edge is not satisfied; for a superseded
   * gate that satisfies nothing, also its successors, since the decision now rests with them.
   */
  private waitsOn(id: NodeId, type?: NodeType): NodeId[] {
    const known = this.waits.get(id);
    if (known) return known;
    const { graph, index } = this.view;
    const node = type === undefined || type === 'gate' ? nodeOf(graph, id) : undefined;
    const successors = isGate(node) && node.status === 'superseded' ? index.into(id, 'SUPERSEDES') : NONE;
    // Each id once, in the order first named (blockers, then successors): a loop, not the spreads
    // and filters it reads as, since `status` asks this for every blocked task it lists.
    const waits: NodeId[] = [];
    const named = new Set<NodeId>();
    for (const edges of [index.into(id, 'BLOCKS'), successors]) {
      for (const { from } of edges) {
        if (named.has(from)) continue;
        named.add(from);
        if (!isBlockerSatisfied(graph, index, from)) waits.push(from);
      }
    }
    this.waits.set(id, waits);
    return waits;
  }
}

const NONE: readonly Edge[] = [];

/** `ids` sorted, as a copy (the lists `waitsOn` keeps are shared by every task that asks). */
function sortedIds(ids: readonly NodeId[]): NodeId[] {
  return ids.length < 2 ? ids.slice() : ids.slice().sort();
}
