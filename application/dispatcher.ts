import { GraphDraft } from '../domain/draft.js';
import { DomainError } from '../domain/errors.js';
import { illFormedTextMessage, isWellFormedText } from '../domain/well-formed-text.js';
import type { AgentName, ReviewRule } from '../domain/model.js';
import type { GraphContext, GraphOperation, HostPorts, Operation, OperationDispatcher, OperationRequest } from './operation.js';
import type { Clock } from './ports/clock.js';
import type { CommitSignals } from './ports/commit-signals.js';
import type { IdSource } from './ports/id-source.js';
import type { PluginReader, ProjectStore, ProjectStoreFactory } from './ports/project-store.js';
import type { PluginRuntimeSource } from './ports/plugin-runtime.js';
import { policyContext, runChecked } from './policy.js';
import { untilFound } from './waiting.js';
import type { OperationRegistry } from './registry.js';

export interface DispatcherServices {
  stores: ProjectStoreFactory;
  clock: Clock;
  ids: IdSource;
  registry: OperationRegistry;
  host: HostPorts;
  /** The policy plugins' runtime, made on first use: a project without plugins never loads it. */
  plugins: PluginRuntimeSource;
  /** Who may accept a submission (the checkout's `.taskdag.json`, a server's server.json); `any` when absent. */
  review?: ReviewRule;
  /** Word of each project's commits, for calls that wait for work (`next --wait`); without it they answer at once. */
  commits?: CommitSignals;
}

/**
 * Runs operations in this process against a store of projects: the local files for the command
 * line and the library, a server's own store for its routes, memory for tests. Every request is
 * checked the same way whatever carried it: the operation exists, an agent is there when it must
 * be, the arguments are valid (and normalised); then it runs on the project it names.
 */
export class LocalDispatcher implements OperationDispatcher {
  constructor(private readonly services: DispatcherServices) {}

  async dispatch(request: OperationRequest): Promise<unknown> {
    return this.run(checkRequest(this.services.registry, request), request);
  }

  /** Runs a request `checkRequest` already passed (a caller that had to check it first), with its normalised arguments. */
  async run({ operation, args }: CheckedRequest, request: Pick<OperationRequest, 'project' | 'agent' | 'key' | 'signal' | 'printed'>): Promise<unknown> {
    const { stores, clock, ids, registry, host, plugins, review } = this.services;
    if (operation.scope === 'host') {
      const services = { stores, clock, plugins, project: request.project, cwd: host.cwd, system: () => host.system(), client: () => host.client() };
      return operation.run(services, args, request.agent);
    }
    const project = requireProject(operation.name, request.project);
    const store = stores.open(project);
    if (operation.scope === 'project') {
      const key = request.key ? { key: request.key } : {};
      return operation.run({ store, clock, ids, registry, plugins, review: review ?? 'any', ...key }, args, request.agent);
    }
    return waitingIfAsked(this.services, store, project, operation, args, request.agent, () => runGraphOperation(store, operation, args, request.agent, this.services, request.printed ?? false), request.signal);
  }
}

/**
 * What every driver checks before anything runs: the operation exists, an agent is there when
 * it must be, and the arguments are valid; they come back normalised.
 */
export function checkRequest(registry: OperationRegistry, request: Pick<OperationRequest, 'operation' | 'args' | 'agent'>): CheckedRequest {
  const operation = registry.get(request.operation);
  if (operation.needsAgent) requireAgent(operation.name, request.agent);
  if (request.agent !== null) refuseIllFormedAgent(operation.name, request.agent);
  return { operation, args: operation.parse(request.args) };
}

/** An agent name is written into the ledger and the claims: like every text, well-formed Unicode (application/args.ts). */
export function refuseIllFormedAgent(operation: string, agent: AgentName): void {
  if (!isWellFormedText(agent)) {
    throw new DomainError('INVALID_ARGUMENT', illFormedTextMessage('The agent name'), {
      operation,
      field: 'agent',
      flag: '--as',
    });
  }
}

export interface CheckedRequest {
  operation: Operation;
  args: ReturnType<Operation['parse']>;
}

/** Mutating commands need an agent identity (spec 1.1); MISSING_AGENT names the operation. */
export function requireAgent(operation: string, agent: AgentName | null): AgentName {
  if (!agent) {
    throw new DomainError('MISSING_AGENT', `${operation} changes the project: pass --as <agent> or set TASKDAG_AGENT`, { operation });
  }
  return agent;
}

/**
 * The project of the checkout a host operation runs in. Outside a checkout: STORAGE_ERROR with
 * cause ENOENT (what a project command gets), ending with what to do instead.
 */
export function requireCheckoutProject(project: string | null, instead: string): string {
  if (project === null) {
    throw new DomainError('STORAGE_ERROR', `No taskdag project here (no .taskdag.json in this directory or above): ${instead}`, { cause: 'ENOENT' });
  }
  return project;
}

function requireProject(operation: string, project: string | null): string {
  if (project === null) throw new DomainError('INVALID_ARGUMENT', `${operation} runs on a project: name one`, { operation });
  return project;
}

/** The rest of a result an operation finishes (`take`'s context), or the result as `run` left it. */
function finished(operation: GraphOperation, context: GraphContext, partial: unknown, args: ReturnType<GraphOperation['parse']>): unknown {
  return operation.finish ? operation.finish(context, partial, args) : partial;
}

/** An operation's whole result, run and finished in one go, on the same draft (a batch item, a group commit). */
export function wholeResult(operation: GraphOperation, context: GraphContext, args: ReturnType<GraphOperation['parse']>): unknown {
  return finished(operation, context, operation.run(context, args), args);
}

type GraphServices = Pick<DispatcherServices, 'clock' | 'ids' | 'plugins' | 'registry' | 'review'>;

/** What a graph operation's rule runs on: a draft of `graph` as `agent` at the clock's now, under the project's policy. */
function graphContext(services: GraphServices, agent: AgentName | null, graph: GraphContext['draft']['graph'], log: GraphContext['log'], plugins: PluginReader): GraphContext {
  return policyContext(new GraphDraft(graph, services.clock.now(), agent, services.review), log, plugins, { runtime: services.plugins, registry: services.registry, ids: services.ids });
}

/**
 * Runs `attempt` (the operation, once); a mutation declared `waiting` whose arguments ask to wait
 * and that found nothing runs again as the project's commits come in, until it finds something
 * or its time is up (application/waiting.ts). Without `commits` (a store nobody can watch, in
 * tests) it answers at once.
 */
export function waitingIfAsked(
  services: GraphServices & Pick<DispatcherServices, 'commits'>,
  store: ProjectStore,
  project: string,
  operation: GraphOperation,
  args: ReturnType<GraphOperation['parse']>,
  agent: AgentName | null,
  attempt: () => Promise<unknown>,
  signal?: AbortSignal,
): Promise<unknown> {
  const waiting = operation.waiting;
  const ms = waiting?.ms(args) ?? 0;
  if (!waiting || ms <= 0 || !services.commits) return attempt();
  return untilFound(services.commits, project, ms, `${operation.name} ${waiting.line(args)}`, {
    attempt,
    found: (result) => waiting.found(result),
    worthTrying: () => store.readGraph((graph, plugins) => waiting.worthTrying(graphContext(services, agent, graph, [], plugins), args)),
  }, signal);
}

/**
 * Reads run on a consistent committed state; mutations run their rule under the exclusive lock
 * and commit. What an operation finishes after the commit (`take`'s context) is built outside
 * the lock, from the graph as committed.
 */
async function runGraphOperation(
  store: ProjectStore,
  operation: GraphOperation,
  args: ReturnType<GraphOperation['parse']>,
  agent: AgentName | null,
  services: GraphServices,
  printed: boolean,
): Promise<unknown> {
  const contextOver = (graph: GraphContext['draft']['graph'], log: GraphContext['log'], plugins: PluginReader): GraphContext => graphContext(services, agent, graph, log, plugins);
  if (operation.mutates) {
    return store.transact(
      (graph, plugins) => {
        const context = contextOver(graph, [], plugins);
        const partial = runChecked(operation, context, args, plugins, services.plugins, () => operation.run(context, args));
        return { result: { context, partial }, changes: context.draft.changes(), undo: () => context.draft.rollback() };
      },
      ({ context, partial }) => finished(operation, context, partial, args),
      operation.prepare && ((graph) => operation.prepare!(graph, args)),
    );
  }
  const read = (graph: GraphContext['draft']['graph'], log: GraphContext['log'], plugins: PluginReader) => {
    const context = contextOver(graph, log, plugins);
    if (printed) context.printed = true;
    return wholeResult(operation, context, args);
  };
  if (operation.needsLog && operation.logNaming && store.readLogNaming) return store.readLogNaming(operation.logNaming(args), (state, plugins) => read(state, state.log, plugins));
  if (operation.needsLog) return store.readState((state, plugins) => read(state, state.log, plugins));
  return store.readGraph((graph, plugins) => read(graph, [], plugins));
}
