import { emptyGraph } from '../../domain/model.js';
import { flag, optional, parseArgs } from '../args.js';
import type { ProjectOperation, Services } from '../operation.js';

interface InitArgs {
  force?: boolean;
}

export interface InitResult {
  project_id: string;
  created: boolean;
  checkout: string;
  state_dir: string;
}

/**
 * Creates the checkout's `.taskdag.json` (if absent) and the schema-1 state (if absent). Over an
 * existing state it changes nothing unless `--force` asks for an intentional reset.
 */
export const init: ProjectOperation<InitArgs, InitResult> = {
  scope: 'project',
  name: 'init',
  mutates: false,
  needsAgent: false,
  parse: (raw) => parseArgs('init', raw, { force: optional(flag()) }),
  run: (services: Services, args: InitArgs) => {
    const checkout = services.checkouts.find() ?? services.checkouts.create(services.ids.projectId(services.checkouts.root()));
    const store = services.stores.open(checkout.project_id);
    const created = args.force === true || !store.exists();
    if (created) store.replace({ ...emptyGraph(), log: [] });
    return { project_id: checkout.project_id, created, checkout: checkout.root, state_dir: store.location };
  },
};
