import type { GraphIndex } from './graph-index.js';
import type { Graph, ReviewRule } from './model.js';
import type { ReadyRanking } from './ranking.js';
import type { StatusIndex } from './status-index.js';

/** What a graph read needs: the graph, its edge index, its status index and its ranking (a GraphDraft is one). */
export interface GraphView {
  graph: Graph;
  index: GraphIndex;
  statuses: StatusIndex;
  /** Who may accept a submission in this project; `any` when absent. */
  review?: ReviewRule;
  ranking: ReadyRanking;
}
