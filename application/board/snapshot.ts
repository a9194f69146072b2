import { allNodes, edgesOf } from '../../domain/node-map.js';
import { GraphDraft } from '../../domain/draft.js';
import type { Timestamp } from '../../domain/clock.js';
import type { Graph } from '../../domain/model.js';
import { oldestFirst, summarize } from '../../domain/node-summary.js';
import { statusSummary } from '../../domain/status-report.js';
import { edgeSchema, nodeSummaryProperties } from '../contract/results.js';
import { array, integer, object, record, string, type Static } from '../contract/schema.js';

const summarySchema = record(integer(), 'Counts of `status` (ready, in_progress, blocked, backlog, submitted, open_gates, active_knowledge)');

export const boardSnapshotSchema = object({
  project: string(),
  revision: integer(),
  fence_generation: integer(),
  summary: summarySchema,
  initiatives: array(object({ name: string(), desc: string(), created_at: string() }), 'By name'),
  nodes: array(object({ ...nodeSummaryProperties(), updated_at: string() }), 'Every node, oldest first'),
  edges: array(edgeSchema()),
});
export type BoardSnapshot = Static<typeof boardSnapshotSchema>;

/** The strong validator of a snapshot: a lineage and a revision name exactly one graph. */
export function snapshotEtag(graph: Pick<Graph, 'revision' | 'fence_generation'>): string {
  return `"g${graph.fence_generation}r${graph.revision}"`;
}

/**
 * Everything the board draws, in one answer: every node's summary (derived status, claim), every
 * edge and initiative, and the status counts. The board filters, groups and lays it out itself,
 * so one snapshot serves every view and `ETag` revalidation makes an unchanged one free.
 */
export function boardSnapshot(project: string, graph: Graph, now: Timestamp): BoardSnapshot {
  const draft = new GraphDraft(graph, now, null);
  return {
    project,
    revision: graph.revision,
    fence_generation: graph.fence_generation,
    summary: statusSummary(draft, now),
    initiatives: Object.keys(graph.initiatives)
      .sort()
      .map((name) => ({ name, ...graph.initiatives[name]! })),
    nodes: oldestFirst(allNodes(graph)).map((node) => ({ ...summarize(graph, draft.index, node), updated_at: node.updated_at })),
    // A copy: a hot graph changes in place after the read that built this.
    edges: [...edgesOf(graph)],
  };
}
