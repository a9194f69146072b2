import type { GraphIndex } from './graph-index.js';
import type { Graph, ReviewRule } from './model.js';
import type { StatusIndex } from './status-index.js';

/** What a graph read needs: the graph, its edge index and its status index (a GraphDraft is one). */
export interface GraphView {
  graph: Graph;
  index: GraphIndex;
  statuses: StatusIndex;
  /** Who may accept a submission in this project; `any` when absent. */
  review?: ReviewRule;
}
