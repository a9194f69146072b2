import { DomainError } from '../../domain/errors.js';
import { isSchemaZero } from '../../domain/legacy-state.js';
import { freshState } from '../../domain/replacement.js';
import { flag, optional } from '../args.js';
import { snapshotMetadataSchema } from '../contract/results.js';
import { boolean, object, optional as optionalProperty, string, type Static, lazily } from '../contract/schema.js';
import { projectOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import type { PluginRuntimeSource } from '../ports/plugin-runtime.js';
import { enforcePolicy, questionAbout } from '../policy.js';
import type { Rewrite, StoredState } from '../ports/project-store.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';
import { warningsField } from '../remote/warnings.js';

const initResult = lazily(() => object({
  project_id: string(),
  created: boolean('Whether this call created (or reset) the state'),
  checkout: optionalProperty(string('The checkout root whose .taskdag.json names the project (command line only)')),
  state_dir: optionalProperty(string('Where the state lives (local mode only)')),
  snapshot: optionalProperty(snapshotMetadataSchema()),
  warnings: warningsField(),
}));
export type InitResult = Static<ReturnType<typeof initResult>>;

/**
 * Creates the project's schema-1 state (if absent); the command line creates the checkout's
 * `.taskdag.json` first when there is none. Over a
 * readable state it changes nothing unless `--force` asks for an intentional reset, which needs
 * an agent like every command that destroys work, and first takes a `force-init` snapshot. Over
 * a corrupt state it takes a `corrupt-recovery` snapshot of the raw files, then starts afresh.
 * A pre-schema-1 state is never reset by accident: `migrate` imports it.
 */
export const init = projectOperation({
  name: 'init',
  summary: 'Create the project state (and .taskdag.json) for this checkout',
  details: 'Over an existing state, `init` changes nothing; `--force` is an intentional reset that first takes a `force-init` snapshot.',
  examples: [
    ['Start a project in the current directory', '$0 init'],
    ['Reset a project on purpose (needs an agent)', '$0 init --force --as alice'],
  ],
  mutates: false,
  needsAgent: false,
  usesAgent: true,
  args: () => ({ force: optional(flag(), 'Reset an existing state (a force-init snapshot is taken first)', { standalone: true }) }),
  result: () => initResult(),
  run: async ({ store, clock, plugins }, args, agent) => {
    if (args.force) requireAgent('init --force', agent);
    const outcome = await store.rewrite((current) => {
      if (args.force && current.kind === 'valid') resetAllowed(plugins, current, args, agent);
      return initialize(current, args.force === true, store.snapshots, clock.now());
    });
    return { project_id: store.projectId, state_dir: store.location, ...outcome };
  },
});

type Outcome = Pick<InitResult, 'created' | 'snapshot'>;

/** A reset displaces the whole state and its plugins (the force-init snapshot keeps them): the plugins decide first. */
function resetAllowed(plugins: PluginRuntimeSource, current: Extract<StoredState, { kind: 'valid' }>, args: Record<string, unknown>, agent: string | null): void {
  enforcePolicy(plugins, current.plugins ?? {}, () => questionAbout('init', args, agent, [], current.state));
}

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
