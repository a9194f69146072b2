import { GraphDraft } from '../domain/draft.js';
import { DomainError } from '../domain/errors.js';
import type { AgentName, Graph, LogEntry } from '../domain/model.js';
import type { GraphOperation, OperationDispatcher, Services } from './operation.js';
import type { ProjectStore } from './ports/project-store.js';

/** Runs operations in this process against the local store (local mode). */
export class LocalOperations implements OperationDispatcher {
  constructor(private readonly services: Services) {}

  async run(name: string, rawArgs: Record<string, unknown>, agent: AgentName | null): Promise<unknown> {
    const operation = this.services.registry.get(name);
    if (operation.mutates || (operation.scope === 'project' && operation.needsAgent)) requireAgent(name, agent);
    const args = operation.parse(rawArgs);
    if (operation.scope === 'project') return operation.run(this.services, args, agent, this);
    return runGraphOperation(openProjectStore(this.services), operation, args, agent, this.services);
  }
}

/** Mutating commands need an agent identity (spec 1.1); MISSING_AGENT names the operation. */
export function requireAgent(operation: string, agent: AgentName | null): AgentName {
  if (!agent) {
    throw new DomainError('MISSING_AGENT', `${operation} changes the project: pass --as <agent> or set TASKDAG_AGENT`, { operation });
  }
  return agent;
}

/** The store of the project the command runs in; a missing or linked checkout is an error. */
export function openProjectStore(services: Services): ProjectStore {
  const checkout = services.checkouts.find();
  if (!checkout) {
    throw new DomainError('STORAGE_ERROR', `No taskdag project here (no .taskdag.json in ${services.checkouts.root()} or above): run taskdag init`, {
      cause: 'ENOENT',
      path: services.checkouts.root(),
    });
  }
  if (checkout.backend) {
    throw new DomainError(
      'REMOTE_UNSUPPORTED_OPERATION',
      `This checkout is linked to ${checkout.backend.url}, and this build of taskdag has no remote client; remove "backend" from .taskdag.json to work locally`,
      { backend: checkout.backend },
    );
  }
  return services.stores.open(checkout.project_id);
}

export function runGraphOperation<A, R>(
  store: ProjectStore,
  operation: GraphOperation<A, R>,
  args: A,
  agent: AgentName | null,
  services: Pick<Services, 'clock' | 'ids'>,
): Promise<R> {
  const execute = (graph: Graph, log: LogEntry[]) =>
    operation.run({ draft: new GraphDraft(graph, services.clock.now(), agent), ids: services.ids, log }, args);
  if (operation.mutates) {
    return store.transact((graph) => {
      const draft = new GraphDraft(graph, services.clock.now(), agent);
      const result = operation.run({ draft, ids: services.ids, log: [] }, args);
      return { result, changes: draft.changes() };
    });
  }
  if (operation.needsLog) return store.readState((state) => execute(state, state.log));
  return store.readGraph((graph) => execute(graph, []));
}
