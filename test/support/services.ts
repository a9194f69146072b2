import { LocalOperations } from '../../application/local-operations.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { Services } from '../../application/operation.js';
import { OperationRegistry } from '../../application/registry.js';
import { InMemoryProjectStores } from './in-memory-stores.js';
import { AT, sampleState } from './states.js';

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

/** Local operations over an in-memory store that holds the sample state (see states.ts). */
export async function operationsOverSample() {
  const services = inMemoryServices();
  await services.stores.store.replace(sampleState());
  return { sut: new LocalOperations(services), store: services.stores.store };
}
