import { allNodes } from '../../domain/node-map.js';
import { isDomainError } from '../../domain/errors.js';
import { GraphDraft } from '../../domain/draft.js';
import { statusSummary } from '../../domain/status-report.js';
import { array, boolean, integer, nullable, object, optional, record, string, type Static } from '../contract/schema.js';
import type { Clock } from '../ports/clock.js';
import type { ProjectStoreFactory } from '../ports/project-store.js';
import type { SeenCheckouts } from '../ports/checkout-record.js';
import type { Graph } from '../../domain/model.js';
import { snapshotEtag } from './snapshot.js';

export const catalogSchema = object({
  projects: array(
    object({
      id: string(),
      name: string('The name the project id was made from: the directory `init` ran in'),
      readable: boolean('False when the state does not load: counters are zeros, and opening it shows the error'),
      revision: nullable(integer()),
      last_activity: nullable(string('When a node or initiative last changed (null when unreadable or empty)')),
      summary: record(integer(), 'The status counts (zeros when unreadable)'),
      checkouts: array(
        object({ label: string('`<host>:<directory>` of a linked checkout; the directory on the local board'), last_seen: string('When it was last seen, to the minute') }),
        'The checkouts seen using the project, most recently seen first (docs/board.md)',
      ),
      error: optional(object({ code: string(), message: string() })),
    }),
    'By id',
  ),
});
export type Catalog = Static<typeof catalogSchema>;
type CatalogEntry = Catalog['projects'][number];
type Counted = Omit<CatalogEntry, 'checkouts'>;

/** The catalog entries of readable projects, by project, with the ETag of the revision they describe. */
export type CatalogMemo = Map<string, { etag: string; entry: Counted }>;

const NEUTRAL = { ready: 0, in_progress: 0, blocked: 0, backlog: 0, submitted: 0, open_gates: 0, active_knowledge: 0 };

/**
 * Every project of a storage root with its counters. A project whose state does not load stays
 * listed with neutral counters and its error, so one broken project never hides the others.
 * A readable project's entry is counted once per revision and kept in `memo` (the board asks
 * on every open and every few seconds; at 10k nodes the counting takes tens of milliseconds).
 * Each entry lists the project's `checkouts` seen.
 */
export async function catalog(stores: ProjectStoreFactory, clock: Clock, { memo = new Map(), checkouts = {} }: { memo?: CatalogMemo; checkouts?: SeenCheckouts } = {}): Promise<Catalog> {
  const ids = (await stores.list()).sort();
  const projects = [];
  for (const id of ids) {
    const seen = { checkouts: checkouts[id] ?? [] };
    try {
      const counted = await stores.open(id).readGraph((graph) => {
        const etag = snapshotEtag(graph);
        const kept = memo.get(id);
        if (kept?.etag === etag) return kept.entry;
        const now = clock.now();
        const entry = { id, name: projectName(id), readable: true, revision: graph.revision, last_activity: lastActivity(graph), summary: statusSummary(new GraphDraft(graph, now, null), now) };
        memo.set(id, { etag, entry });
        return entry;
      });
      projects.push({ ...counted, ...seen });
    } catch (error) {
      memo.delete(id);
      if (!isDomainError(error)) throw error;
      projects.push({ id, name: projectName(id), readable: false, revision: null, last_activity: null, summary: NEUTRAL, ...seen, error: { code: error.code, message: error.message } });
    }
  }
  for (const id of memo.keys()) if (!ids.includes(id)) memo.delete(id);
  return { projects };
}

/** A project id is its checkout directory's name and a random suffix (`shop-1a2b3c4d`): the name is the first part. */
export function projectName(id: string): string {
  return id.replace(/-[0-9a-f]{8}$/, '') || id;
}

/** The latest change of any node or initiative: ISO timestamps compare as strings. */
function lastActivity(graph: Graph): string | null {
  let latest: string | null = null;
  for (const node of allNodes(graph)) if (latest === null || node.updated_at > latest) latest = node.updated_at;
  for (const initiative of Object.values(graph.initiatives)) if (latest === null || initiative.created_at > latest) latest = initiative.created_at;
  return latest;
}
