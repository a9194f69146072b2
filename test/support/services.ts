import { OPERATIONS } from '../../application/operations/index.js';
import type { Services } from '../../application/operation.js';
import { OperationRegistry } from '../../application/registry.js';
import { InMemoryProjectStores } from './in-memory-stores.js';
import { AT } from './states.js';

/** Services over in-memory stores, a fixed clock and fixed ids, with a checkout that already exists. */
export function inMemoryServices(): Services & { stores: InMemoryProjectStores } {
  const checkout = { root: '/checkout', project_id: 'memory', backend: null };
  return {
    checkouts: { find: () => checkout, create: () => checkout, root: () => checkout.root },
    stores: new InMemoryProjectStores(),
    clock: { now: () => AT },
    ids: { nodeSuffix: () => '00000000', projectId: () => 'memory' },
    registry: new OperationRegistry(OPERATIONS),
  };
}
