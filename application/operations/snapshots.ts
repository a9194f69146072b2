import { snapshotMetadataSchema } from '../contract/results.js';
import { array, object } from '../contract/schema.js';
import { projectOperation } from '../define.js';

/** The project's recoverable snapshots, newest first (spec 4.4); reading them needs no agent. */
export const snapshots = projectOperation({
  name: 'snapshots',
  summary: 'List the recoverable snapshots of the project, newest first',
  details:
    'Snapshots are taken by `init --force` (force-init), `init` over a corrupt state (corrupt-recovery), `restore` (pre-restore) and `migrate` (pre-migrate).',
  examples: [['List the snapshots', '$0 snapshots']],
  mutates: false,
  remote: false,
  args: () => ({}),
  result: () => object({ snapshots: array(snapshotMetadataSchema(), 'Complete pairs only, newest first') }),
  run: async ({ store }) => ({ snapshots: await store.snapshots.list() }),
});
