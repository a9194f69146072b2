import type { GraphDraft } from '../domain/draft.js';
import type { AgentName, LogEntry } from '../domain/model.js';
import type { CheckoutLocator } from './ports/checkout.js';
import type { Clock } from './ports/clock.js';
import type { IdSource } from './ports/id-source.js';
import type { ProjectStoreFactory } from './ports/project-store.js';
import type { OperationRegistry } from './registry.js';

/** What a graph operation works with: the draft of the graph (changes recorded there) and ids. */
export interface GraphContext {
  draft: GraphDraft;
  ids: IdSource;
  /** The whole log, present only for operations that declare `needsLog`. */
  log: LogEntry[];
}

/**
 * One named operation on a project's graph: a command, a batch item, or (later) an HTTP call.
 * `parse` validates arguments as plain JSON whatever carried them; `run` applies the rules.
 */
export interface GraphOperation<A = any, R = unknown> {
  readonly scope: 'graph';
  readonly name: string;
  /** Mutating operations need an agent, run under the exclusive lock and commit their draft. */
  readonly mutates: boolean;
  readonly needsLog?: boolean;
  parse(raw: unknown): A;
  run(context: GraphContext, args: A): R;
}

export interface Services {
  checkouts: CheckoutLocator;
  stores: ProjectStoreFactory;
  clock: Clock;
  ids: IdSource;
  /** Every operation by name, for operations that run others (batch). */
  registry: OperationRegistry;
}

/** An operation on the project as a whole (init, snapshots, restore, batch, migrate). */
export interface ProjectOperation<A = any, R = unknown> {
  readonly scope: 'project';
  readonly name: string;
  readonly mutates: boolean;
  /** Whether the agent identity is required even though the graph is not edited op by op. */
  readonly needsAgent: boolean;
  parse(raw: unknown): A;
  run(services: Services, args: A, agent: AgentName | null, dispatcher: OperationDispatcher): R | Promise<R>;
}

export type Operation = GraphOperation | ProjectOperation;

/** The one port every driver (CLI, server, batch, embedding tools) runs operations through. */
export interface OperationDispatcher {
  run(name: string, args: Record<string, unknown>, agent: AgentName | null): Promise<unknown>;
}
