import { nodeOf } from './node-map.js';
import type { GraphIndex } from './graph-index.js';
import { isGate, type Edge, type Graph, type NodeId, type NodeType } from './model.js';
import type { Blockers } from './node-summary.js';
import { isBlockerSatisfied } from './status.js';

/**
 * How many ids each list of `Blockers` names; its count says how many there are in all. A
 * checkpoint saves blockers worked out under this (SavedBlockers): a change to it, or to what
 * a node waits on, bumps STATUS_RULES_VERSION (domain/status.ts), so they are worked out again.
 */
export const BLOCKER_LIST_LIMIT = 10;

/**
 * What a blocked task waits on, as worked out when a checkpoint was saved, and every node that
 * answer was read from (the task's own node and edges into it, its blockers, the chains above
 * them): it holds for as long as none of those nodes has changed, nor an edge into one of them.
 */
export interface SavedBlockers {
  blockers: Blockers;
  reads: NodeId[];
}

/** The most nodes a saved answer may have been read from: a longer chain is walked at each read instead of saved. */
export const SAVED_BLOCKER_READS = 64;

/**
 * Finds the blockers of nodes of one graph. What a node waits on is worked out once and shared
 * by every node asked about (a `status` answer lists many blocked tasks that wait on the same
 * chains), so the cost follows the part of the graph above the nodes asked about.
 */
export class BlockerFinder {
  private readonly waits = new Map<NodeId, NodeId[]>();

  /** `view`: a graph and its edge index (a GraphView is one). */
  constructor(private readonly view: { graph: Graph; index: GraphIndex }) {}

  /** What node `id` waits on; `type`, when the caller knows it, spares reading the node to see whether it is a gate. */
  of(id: NodeId, type?: NodeType): Blockers {
    const { direct, roots } = this.walk(id, type);
    return listed(direct, roots);
  }

  /**
   * What node `id` waits on, with every node the answer reads (a checkpoint saves it beside the
   * task's listing); null when that is more than SAVED_BLOCKER_READS nodes.
   */
  saved(id: NodeId, type?: NodeType): SavedBlockers | null {
    const { direct, roots, above } = this.walk(id, type);
    const reads = new Set<NodeId>();
    for (const node of [id, ...above]) {
      reads.add(node);
      // What `waitsOn` reads of it: its blockers (and successors) and the chains that say whether each is satisfied.
      this.eachCandidate(node, node === id ? type : undefined, (from) => isBlockerSatisfied(this.view.graph, this.view.index, from, reads));
      if (reads.size > SAVED_BLOCKER_READS) return null;
    }
    return { blockers: listed(direct, roots), reads: [...reads] };
  }

  /** The unsatisfied blockers of `id`, the open roots above them, and every node walked above `id`. */
  private walk(id: NodeId, type?: NodeType): { direct: NodeId[]; roots: NodeId[]; above: Set<NodeId> } {
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
    return { direct, roots, above: seen };
  }

  /**
   * What `id` waits on directly: its blockers whose BLOCKS edge is not satisfied; for a superseded
   * gate that satisfies nothing, also its successors, since the decision now rests with them.
   */
  private waitsOn(id: NodeId, type?: NodeType): NodeId[] {
    const known = this.waits.get(id);
    if (known) return known;
    const { graph, index } = this.view;
    const waits: NodeId[] = [];
    this.eachCandidate(id, type, (from) => {
      if (!isBlockerSatisfied(graph, index, from)) waits.push(from);
    });
    this.waits.set(id, waits);
    return waits;
  }

  /**
   * Calls `visit` once for each node `id` may wait on: its blockers, then a superseded gate's
   * successors, each once. A loop, not the spreads and filters it reads as, since `status` asks
   * this for every blocked task it lists.
   */
  private eachCandidate(id: NodeId, type: NodeType | undefined, visit: (from: NodeId) => void): void {
    const { graph, index } = this.view;
    const node = type === undefined || type === 'gate' ? nodeOf(graph, id) : undefined;
    const successors = isGate(node) && node.status === 'superseded' ? index.into(id, 'SUPERSEDES') : NONE;
    const named = new Set<NodeId>();
    for (const edges of [index.into(id, 'BLOCKS'), successors]) {
      for (const { from } of edges) {
        if (named.has(from)) continue;
        named.add(from);
        visit(from);
      }
    }
  }
}

const NONE: readonly Edge[] = [];

/** The lists of `Blockers`, sorted and cut, with their counts. */
function listed(direct: readonly NodeId[], roots: readonly NodeId[]): Blockers {
  const directSorted = sortedIds(direct);
  const rootsSorted = sortedIds(roots);
  return { direct: directSorted.slice(0, BLOCKER_LIST_LIMIT), direct_count: directSorted.length, open_roots: rootsSorted.slice(0, BLOCKER_LIST_LIMIT), open_roots_count: rootsSorted.length };
}

/** `ids` sorted, as a copy (the lists `waitsOn` keeps are shared by every task that asks). */
function sortedIds(ids: readonly NodeId[]): NodeId[] {
  return ids.length < 2 ? ids.slice() : ids.slice().sort();
}
