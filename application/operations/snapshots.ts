import { parseArgs } from '../args.js';
import { openProjectStore } from '../local-operations.js';
import type { ProjectOperation } from '../operation.js';
import type { SnapshotMetadata } from '../ports/snapshot-store.js';

/** The project's recoverable snapshots, newest first (spec 4.4); reading them needs no agent. */
export const snapshots: ProjectOperation<Record<string, never>, { snapshots: SnapshotMetadata[] }> = {
  scope: 'project',
  name: 'snapshots',
  mutates: false,
  needsAgent: false,
  parse: (raw) => parseArgs('snapshots', raw, {}),
  run: async (services) => ({ snapshots: await openProjectStore(services).snapshots.list() }),
};
