import { DomainError } from '../../domain/errors.js';
import { isSchemaZero } from '../../domain/legacy-state.js';
import { freshState } from '../../domain/replacement.js';
import type { AgentName } from '../../domain/model.js';
import { flag, optional, parseArgs } from '../args.js';
import { requireAgent } from '../local-operations.js';
import type { ProjectOperation, Services } from '../operation.js';
import type { Rewrite, StoredState } from '../ports/project-store.js';
import type { SnapshotMetadata, SnapshotStore } from '../ports/snapshot-store.js';

interface InitArgs {
  force?: boolean;
}

export interface InitResult {
  project_id: string;
  created: boolean;
  checkout: string;
  state_dir: string;
  /** The snapshot of the state this `init` displaced (force-init or corrupt-recovery); absent when none was taken. */
  snapshot?: SnapshotMetadata;
}

/**
 * Creates the checkout's `.taskdag.json` (if absent) and the schema-1 state (if absent). Over a
 * readable state it changes nothing unless `--force` asks for an intentional reset, which needs
 * an agent like every command that destroys work, and first takes a `force-init` snapshot. Over
 * a corrupt state it takes a `corrupt-recovery` snapshot of the raw files, then starts afresh.
 * A pre-schema-1 state is never reset by accident: `migrate` imports it.
 */
export const init: ProjectOperation<InitArgs, InitResult> = {
  scope: 'project',
  name: 'init',
  mutates: false,
  needsAgent: false,
  parse: (raw) => parseArgs('init', raw, { force: optional(flag()) }),
  run: async (services: Services, args: InitArgs, agent: AgentName | null) => {
    if (args.force) requireAgent('init --force', agent);
    const checkout = services.checkouts.find() ?? services.checkouts.create(services.ids.projectId(services.checkouts.root()));
    const store = services.stores.open(checkout.project_id);
    const outcome = await store.rewrite((current) => initialize(current, args.force === true, store.snapshots, services.clock.now()));
    return { project_id: checkout.project_id, checkout: checkout.root, state_dir: store.location, ...outcome };
  },
};

type Outcome = Pick<InitResult, 'created' | 'snapshot'>;

async function initialize(current: StoredState, force: boolean, snapshots: SnapshotStore, now: string): Promise<Rewrite<Outcome>> {
  switch (current.kind) {
    case 'absent':
      return { result: { created: true }, state: freshState(null) };
    case 'valid':
      if (!force) return { result: { created: false }, state: null };
      return { result: { created: true, snapshot: await snapshots.take('force-init', current, now) }, state: freshState(current.state) };
    case 'unreadable': {
      const legacy = isLegacy(current.text);
      if (legacy && !force) {
        throw new DomainError('STORAGE_ERROR', `${current.error.details.path} holds a state from before schema 1: run taskdag migrate to import it`, {
          ...current.error.details,
          form: 'schema-0',
        });
      }
      const snapshot = await snapshots.take(legacy ? 'force-init' : 'corrupt-recovery', current, now);
      return { result: { created: true, snapshot }, state: freshState(current.reached) };
    }
  }
}

function isLegacy(text: string): boolean {
  try {
    return isSchemaZero(JSON.parse(text));
  } catch {
    return false;
  }
}
