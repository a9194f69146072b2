import type { Timestamp } from './clock.js';
import type { ImportEvent } from './legacy-state.js';
import { emptyGraph, type AgentName, type Graph, type State } from './model.js';

/** What is known of the state being displaced: nothing when it was absent; what its files still tell when unreadable. */
export type Displaced = Pick<Graph, 'revision' | 'fence_generation'> | null;

/**
 * The state `init` creates. A reset (`init --force`) starts a new lineage, so it takes the next
 * fence generation: a client holding revision N of the old lineage can tell the new state's
 * revision N apart from it. A first `init` starts at 1; one over an unreadable state moves past
 * the fence generation its files still show.
 */
export function freshState(displaced: Displaced): State {
  return { ...emptyGraph(), fence_generation: (displaced?.fence_generation ?? 0) + 1, log: [] };
}

export interface RestoreEvent {
  snapshot: string;
  at: Timestamp;
  by: AgentName;
}

/**
 * The live state a restore writes: the snapshot's graph and log, plus one `restore` event. Its
 * revision continues past both the snapshot and the displaced state, so a state revision is
 * never reused for different content; its fence generation moves past both as well.
 */
export function restoredState(snapshot: State, displaced: Displaced, event: RestoreEvent): State {
  const { revision, fence_generation } = pastBoth(snapshot, displaced);
  return {
    ...snapshot,
    fence_generation,
    revision,
    log: [
      ...snapshot.log,
      {
        revision,
        at: event.at,
        by: event.by,
        op: 'restore',
        node: null,
        snapshot: event.snapshot,
        restored_revision: snapshot.revision,
        replaced_revision: displaced?.revision ?? null,
      },
    ],
  };
}

/**
 * The live state `migrate` writes from a schema-1 state found as one plain JSON document (an
 * operator's recovery, spec 2.1's form): its graph and log, plus one `migrate` event. Like a
 * restore, it displaces whatever the project's files had reached, so its revision and fence
 * generation move past both.
 */
export function importedDocument(document: State, displaced: Displaced, event: ImportEvent): State {
  const { revision, fence_generation } = pastBoth(document, displaced);
  return {
    ...document,
    fence_generation,
    revision,
    log: [...document.log, { revision, at: event.at, by: event.by, op: 'migrate', node: null, from: 'schema-1-document' }],
  };
}

/** The revision and fence generation just past both a replacement's own and the displaced state's. */
function pastBoth(replacement: State, displaced: Displaced): Pick<State, 'revision' | 'fence_generation'> {
  return {
    revision: Math.max(replacement.revision, displaced?.revision ?? 0) + 1,
    fence_generation: Math.max(replacement.fence_generation, displaced?.fence_generation ?? 0) + 1,
  };
}
