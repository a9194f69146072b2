import { nodeOf } from '../../domain/node-map.js';
import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import type { Timestamp } from '../../domain/clock.js';
import { nodeContext } from '../../domain/context.js';
import { GraphDraft } from '../../domain/draft.js';
import { historyOf } from '../../domain/history.js';
import type { GraphWithLog } from '../../domain/model.js';
import { oldestFirst, summarize } from '../../domain/node-summary.js';
import { contextSchema, logEntrySchema, nodeSummarySchema } from '../contract/results.js';
import { array, object, type Static } from '../contract/schema.js';

/** Entries of a node's history the detail view shows, newest last. */
export const DETAIL_HISTORY = 50;

export const nodeDetailSchema = object({
  context: contextSchema(),
  blocks: array(nodeSummarySchema(), 'What this node blocks (outgoing BLOCKS), oldest first'),
  history: array(logEntrySchema(), `Its last ${DETAIL_HISTORY} log entries, oldest first`),
});
export type NodeDetail = Static<typeof nodeDetailSchema>;

/**
 * One node as the board's detail view shows it: its context (fields, blockers each with status
 * and satisfaction, matching knowledge, alerts; no agent, so no actions), what it blocks, and
 * its recent history. NODE_NOT_FOUND for an unknown id.
 */
export function nodeDetail(state: GraphWithLog, id: string, now: Timestamp): NodeDetail {
  const graph = state;
  const draft = new GraphDraft(graph, now, null);
  const node = draft.requireNode(id);
  const blocked = draft.index.outOf(id, 'BLOCKS').map((edge) => nodeOf(graph, edge.to)!);
  return {
    context: nodeContext(draft, node, now, { agent: null, staleMs: DEFAULT_STALE_MS }),
    blocks: oldestFirst(blocked).map((target) => summarize(graph, draft.index, target)),
    history: historyOf(state.log, id, DETAIL_HISTORY).entries,
  };
}
