import type { GraphDraft } from '../domain/draft.js';
import type { AgentName, LogEntry, NodeId } from '../domain/model.js';
import type { Action } from '../domain/permissions.js';
import type { ArgsOf, ArgsSpec } from './args.js';
import type { Schema } from './contract/schema.js';
import type { Clock } from './ports/clock.js';
import type { IdSource } from './ports/id-source.js';
import type { ProjectStore, ProjectStoreFactory } from './ports/project-store.js';
import type { ClientPorts } from './remote/client-ports.js';
import type { SystemPorts } from './server/system-ports.js';
import type { PluginRuntimeSource } from './ports/plugin-runtime.js';

// A request and the port that runs it, in a leaf module that ports (the remote server's) share.
export type { OperationDispatcher, OperationRequest } from './operation-request.js';

/**
 * What every operation declares once; every driver is derived from it: argument validation, the
 * CLI's options and help, the JSON Schemas in `schemas/`, and the typed library API.
 */
export interface Declaration<S extends ArgsSpec = ArgsSpec, R = unknown> {
  readonly name: string;
  /** One line: what it does. */
  readonly summary: string;
  /** More for `--help`: rules, defaults, the errors a user meets. */
  readonly details?: string;
  /** Command lines that run (`$0` is the program), each with what it shows. */
  readonly examples: readonly (readonly [string, string])[];
  readonly args: S;
  readonly result: Schema<R>;
  /** Mutating operations need an agent and commit under the project's exclusive lock. */
  readonly mutates: boolean;
  /** Whether the agent identity is required (every mutation; also init --force, restore...). */
  readonly needsAgent: boolean;
  /** Whether a linked checkout may run it on its server; `false` answers REMOTE_UNSUPPORTED_OPERATION there. */
  readonly remote: boolean;
  /**
   * Its arguments are one JSON document (a batch) rather than flags: the command line reads it
   * from `--file <path>` or `--stdin`.
   */
  readonly argsFromDocument?: boolean;
}

/** What a graph operation works with: the draft of the graph (changes recorded there) and ids. */
export interface GraphContext {
  draft: GraphDraft;
  ids: IdSource;
  /** The whole log, present only for operations that declare `needsLog`. */
  log: LogEntry[];
  /** Which of `actions` on node `id` the project's policy plugins allow (all of them when it has none). */
  permitted?: (actions: Action[], id: NodeId) => Action[];
}

/**
 * An operation on a project's graph: a command, a batch item, an HTTP call. `run` applies the
 * rules (under the exclusive lock when it mutates); `finish`, when present, builds the rest of
 * the result from the graph as committed, after the lock is released (`take`'s context).
 */
export interface GraphOperation<S extends ArgsSpec = any, R = any, P = any> extends Declaration<S, R> {
  readonly scope: 'graph';
  readonly needsLog: boolean;
  parse(raw: unknown): ArgsOf<S>;
  run(context: GraphContext, args: ArgsOf<S>): P;
  finish?(context: GraphContext, partial: P, args: ArgsOf<S>): R;
}

/** Every operation by name (OperationRegistry). */
export interface OperationCatalog {
  /** UNKNOWN_COMMAND when there is none of that name. */
  get(name: string): Operation;
  names(): string[];
}

/** What an operation on a project as a whole receives: that project's store, never a checkout. */
export interface ProjectServices {
  store: ProjectStore;
  clock: Clock;
  ids: IdSource;
  /** The policy plugins' runtime, made on first use (docs/plugins.md). */
  plugins: PluginRuntimeSource;
  /** Every operation by name, for operations that run others (batch). */
  registry: OperationCatalog;
}

/** An operation on one project as a whole (init, snapshots, restore, batch). */
export interface ProjectOperation<S extends ArgsSpec = any, R = any> extends Declaration<S, R> {
  readonly scope: 'project';
  parse(raw: unknown): ArgsOf<S>;
  run(services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
}

/** What host operations reach beyond the storage root: the caller's directory and the machine. */
export interface HostPorts {
  /** Where relative paths given by the caller are resolved from. */
  cwd: string;
  /** The machine's files, secrets, sockets and installation, for the server's setup; made on first use. */
  system(): SystemPorts;
  /** The checkout, session profile, terminal and servers of the remote commands; made on first use. */
  client(): ClientPorts;
}

/** What a host operation receives: the whole storage root, the project in hand if any, the host. */
export interface HostServices extends HostPorts {
  stores: ProjectStoreFactory;
  clock: Clock;
  /** The policy plugins' runtime, made on first use (docs/plugins.md). */
  plugins: PluginRuntimeSource;
  /** The project of the checkout it runs in, when there is one. */
  project: string | null;
}

/** An operation on the host rather than one project (`migrate --all`). */
export interface HostOperation<S extends ArgsSpec = any, R = any> extends Declaration<S, R> {
  readonly scope: 'host';
  /**
   * Whether it runs in a checkout linked to a server: the machine's commands (server ..., link,
   * login, push...) do; one that works on the checkout's local state (migrate) answers
   * REMOTE_UNSUPPORTED_OPERATION there.
   */
  readonly inLinkedCheckout: boolean;
  parse(raw: unknown): ArgsOf<S>;
  run(services: HostServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
}

export type Operation = GraphOperation | ProjectOperation | HostOperation;
