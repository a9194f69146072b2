import type { Claim, Graph, KnowledgeScope, NodeId, NodeType } from '../domain/model.js';
import { StatusIndex, type NodeHead } from '../domain/status-index.js';

/** A head as the checkpoint stores it: `[type, status, initiative, domain, created_at, claim, scope]`. */
type HeadRow = [NodeType, string, string, string | null, string, Claim | null, KnowledgeScope | null];

const TYPES: readonly unknown[] = ['task', 'gate', 'knowledge'];

/** The graph's StatusIndex heads as rows in the order of `ids`, so a load derives no status. */
export function headRows(graph: Graph, ids: readonly NodeId[]): HeadRow[] {
  const heads = StatusIndex.of(graph).all();
  return ids.map((id) => {
    const head = heads.get(id)!;
    return [head.type, head.status, head.initiative, head.domain, head.created_at, head.claim, head.scope];
  });
}

/**
 * The heads a checkpoint stores, or null when any is malformed: heads are derived data, so the
 * reader derives them again from the nodes (slower, never wrong) rather than refuse the file.
 */
export function headsOf(rows: unknown, ids: readonly NodeId[]): NodeHead[] | null {
  if (!Array.isArray(rows) || rows.length !== ids.length || !rows.every(isHeadRow)) return null;
  return rows.map(([type, status, initiative, domain, created_at, claim, scope]: HeadRow, position) => ({
    id: ids[position]!,
    type,
    status,
    initiative,
    domain,
    created_at,
    claim,
    scope,
  }));
}

function isHeadRow(row: unknown): row is HeadRow {
  if (!Array.isArray(row) || row.length !== 7) return false;
  const [type, status, initiative, domain, createdAt, claim, scope] = row as unknown[];
  return (
    TYPES.includes(type) &&
    typeof status === 'string' &&
    typeof initiative === 'string' &&
    (domain === null || typeof domain === 'string') &&
    typeof createdAt === 'string' &&
    (claim === null || (typeof claim === 'object' && typeof (claim as Claim).by === 'string' && typeof (claim as Claim).at === 'string')) &&
    (scope === null) === (type !== 'knowledge') &&
    (scope === null || isScope(scope))
  );
}

function isScope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const scope = value as Record<string, unknown>;
  return ['domains', 'initiatives', 'tags', 'node_ids'].every((list) => Array.isArray(scope[list]) && (scope[list] as unknown[]).every((item) => typeof item === 'string'));
}
