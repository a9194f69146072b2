import { LocalDispatcher, type DispatcherServices } from '../../application/dispatcher.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { OperationRegistry } from '../../application/registry.js';
import type { AgentName } from '../../domain/model.js';
import { FakePluginRuntime } from './fake-plugin-runtime.js';
import { InMemoryProjectStores } from './in-memory-stores.js';
import { AT, sampleState } from './states.js';

/** Dispatcher services over in-memory stores, a fixed clock and fixed ids. */
export function inMemoryServices(): DispatcherServices & { stores: InMemoryProjectStores; runtime: FakePluginRuntime } {
  const runtime = new FakePluginRuntime();
  return {
    runtime,
    plugins: () => runtime,
    stores: new InMemoryProjectStores(),
    clock: { now: () => AT },
    ids: { nodeSuffix: () => '00000000', projectId: () => 'memory' },
    registry: new OperationRegistry(OPERATIONS),
    host: {
      cwd: '/checkout',
      system: () => {
        throw new Error('the in-memory services have no machine to set a server up on');
      },
      client: () => {
        throw new Error('the in-memory services have no checkout, terminal or server');
      },
    },
  };
}

/** The local dispatcher over an in-memory store that holds the sample state (see states.ts), on project `memory`. */
export async function operationsOverSample() {
  const services = inMemoryServices();
  await services.stores.store.replace(sampleState());
  const dispatcher = new LocalDispatcher(services);
  const sut = {
    run: (operation: string, args: Record<string, unknown>, agent: AgentName | null) => dispatcher.dispatch({ project: 'memory', operation, args, agent }),
  };
  return { sut, store: services.stores.store };
}
