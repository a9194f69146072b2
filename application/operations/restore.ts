import type { AgentName } from '../../domain/model.js';
import { restoredState } from '../../domain/replacement.js';
import { nonEmptyText, parseArgs, required } from '../args.js';
import { openProjectStore, requireAgent } from '../local-operations.js';
import type { ProjectOperation, Services } from '../operation.js';
import type { SnapshotMetadata } from '../ports/snapshot-store.js';

interface RestoreArgs {
  snapshot_id: string;
}

/**
 * Replaces the live state with a snapshot (spec 4.4), all under the exclusive lock: the snapshot
 * is checked whole before anything is written, the displaced state is saved as a `pre-restore`
 * snapshot, and the restored log gains a `restore` event naming the agent. It also works over a
 * live state that no longer loads: that is what it is for.
 */
export const restore: ProjectOperation<RestoreArgs, { snapshot: SnapshotMetadata }> = {
  scope: 'project',
  name: 'restore',
  mutates: true,
  needsAgent: true,
  parse: (raw) => parseArgs('restore', raw, { snapshot_id: required(nonEmptyText()) }),
  run: (services: Services, args: RestoreArgs, agent: AgentName | null) => {
    const by = requireAgent('restore', agent);
    const store = openProjectStore(services);
    return store.rewrite(async (current) => {
      const { metadata, state } = await store.snapshots.load(args.snapshot_id);
      const now = services.clock.now();
      if (current.kind !== 'absent') await store.snapshots.take('pre-restore', current, now);
      const displaced = current.kind === 'valid' ? current.state : current.kind === 'unreadable' ? current.reached : null;
      return {
        result: { snapshot: metadata },
        state: restoredState(state, displaced, { snapshot: metadata.id, at: now, by }),
      };
    });
  },
};
