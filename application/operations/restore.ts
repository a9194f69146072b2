import { restoredState } from '../../domain/replacement.js';
import { nonEmptyText, required } from '../args.js';
import { snapshotMetadataSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { projectOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { enforcePolicy, questionAbout } from '../policy.js';
import { reachedBy } from '../ports/project-store.js';

/**
 * Replaces the live state with a snapshot (spec 4.4), all under the exclusive lock: the snapshot
 * is checked whole before anything is written, the displaced state is saved as a `pre-restore`
 * snapshot, and the restored log gains a `restore` event naming the agent. It also works over a
 * live state that no longer loads: that is what it is for. The live state's policy plugins decide
 * first (a restore restricted to some agents); the snapshot's plugin table comes back with its
 * graph (docs/plugins.md).
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
  args: () => ({ snapshot_id: required(nonEmptyText(), 'The snapshot to restore (see snapshots)', { positional: true }) }),
  result: () => object({ snapshot: snapshotMetadataSchema() }),
  run: async ({ store, clock, plugins }, args, agent) => {
    const by = requireAgent('restore', agent);
    return store.rewrite(async (current) => {
      const { metadata, state, plugins: restoredPlugins } = await store.snapshots.load(args.snapshot_id);
      // A live state that does not load has no plugins to ask: restoring it is the way out.
      if (current.kind === 'valid') enforcePolicy(plugins, current.plugins ?? {}, () => questionAbout('restore', args, by, [], state));
      const now = clock.now();
      if (current.kind !== 'absent') await store.snapshots.take('pre-restore', current, now);
      const displaced = reachedBy(current);
      return {
        result: { snapshot: metadata },
        state: restoredState(state, displaced, { snapshot: metadata.id, at: now, by }),
        plugins: restoredPlugins,
      };
    });
  },
});
