import { restoredState } from '../../domain/replacement.js';
import { nonEmptyText, required } from '../args.js';
import { snapshotMetadataSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { projectOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';

/**
 * Replaces the live state with a snapshot (spec 4.4), all under the exclusive lock: the snapshot
 * is checked whole before anything is written, the displaced state is saved as a `pre-restore`
 * snapshot, and the restored log gains a `restore` event naming the agent. It also works over a
 * live state that no longer loads: that is what it is for.
 */
export const restore = projectOperation({
  name: 'restore',
  summary: 'Replace the live state with a snapshot (the displaced state is kept as a pre-restore snapshot)',
  details:
    'The snapshot is checked whole (its pair, size, sha256 and every collection) before anything changes; on any problem the live state is left untouched.',
  examples: [
    [
      'Go back to the newest snapshot',
      '$0 restore "$($0 snapshots | node -p \'JSON.parse(fs.readFileSync(0)).snapshots[0].id\')" --as alice',
    ],
  ],
  mutates: true,
  remote: false,
  args: { snapshot_id: required(nonEmptyText(), 'The snapshot to restore (see snapshots)', { positional: true }) },
  result: object({ snapshot: snapshotMetadataSchema }),
  run: async ({ store, clock }, args, agent) => {
    const by = requireAgent('restore', agent);
    return store.rewrite(async (current) => {
      const { metadata, state } = await store.snapshots.load(args.snapshot_id);
      const now = clock.now();
      if (current.kind !== 'absent') await store.snapshots.take('pre-restore', current, now);
      const displaced = current.kind === 'valid' ? current.state : current.kind === 'unreadable' ? current.reached : null;
      return {
        result: { snapshot: metadata },
        state: restoredState(state, displaced, { snapshot: metadata.id, at: now, by }),
      };
    });
  },
});
