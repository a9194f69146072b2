import type { GraphDraft } from '../domain/draft.js';
import type { AgentName, Graph, LogEntry, NodeId, ReviewRule } from '../domain/model.js';
import type { RequestKey } from '../domain/request-window.js';
import type { Action } from '../domain/permissions.js';
import type { ArgsOf, ArgsSpec } from './args.js';
import type { Declaration } from './declaration.js';
import type { HostOperation } from './host-operation.js';
import type { Clock } from './ports/clock.js';
import type { IdSource } from './ports/id-source.js';
import type { ProjectStore } from './ports/project-store.js';
import type { PluginRuntimeSource } from './ports/plugin-runtime.js';

// The kernel types live in leaf modules (a declaration, a request and the port that runs it, a
// host operation and its ports); this module names the three kinds of operation over them.
export type { Declaration } from './declaration.js';
export type { HostOperation, HostPorts, HostServices } from './host-operation.js';
export type { OperationDispatcher, OperationRequest } from './operation-request.js';

/** What a graph operation works with: the draft of the graph (changes recorded there) and ids. */
export interface GraphContext {
  draft: GraphDraft;
  ids: IdSource;
  /** The whole log, present only for operations that declare `needsLog` (with `logNaming`, at least every entry naming its node). */
  log: LogEntry[];
  /** Which of `actions` on node `id` the project's policy plugins allow (all of them when it has none). */
  permitted?: (actions: Action[], id: NodeId) => Action[];
  /** The caller prints the answer at once (OperationRequest `printed`): a read may answer with JsonText. */
  printed?: boolean;
}

/**
 * An operation on a project's graph: a command, a batch item, an HTTP call. `run` applies the
 * rules (under the exclusive lock when it mutates); `finish`, when present, builds the rest of
 * the result from the graph as committed, after the lock is released (`take`'s context).
 */
export interface GraphOperation<S extends ArgsSpec = any, R = any, P = any> extends Declaration<S, R> {
  readonly scope: 'graph';
  readonly needsLog: boolean;
  /**
   * With `needsLog`: the node whose log entries are all `run` reads of the log, so that a store
   * may give those (and maybe others) rather than the whole log (ProjectStore's `readLogNaming`).
   */
  logNaming?(args: ArgsOf<S>): NodeId;
  parse(raw: unknown): ArgsOf<S>;
  run(context: GraphContext, args: ArgsOf<S>): P;
  finish?(context: GraphContext, partial: P, args: ArgsOf<S>): R;
  /**
   * Derives, on the committed graph before the lock is taken, what `run` will read (ProjectStore's
   * `prepare`): `next` ranks the ready tasks there, and under the lock only what was committed
   * meanwhile is ranked again.
   */
  prepare?(graph: Graph, args: ArgsOf<S>): void;
  /** A mutation that may wait for the project to change when it finds nothing to do (OperationWaiting). */
  readonly waiting?: OperationWaiting<ArgsOf<S>, R>;
}

/**
 * How a mutation that found nothing to do waits for work (`next --wait`, application/waiting.ts):
 * for how long its arguments ask, which waits would find the same work, whether an answer is
 * that nothing, and a look at a committed graph (no lock, no change) that says whether trying
 * again could find something.
 */
export interface OperationWaiting<A, R> {
  /** Milliseconds to wait at most; 0 answers at once. */
  ms(args: A): number;
  /**
   * The same text for two calls exactly when whatever one could find the other could too (its
   * filters, not who asks): such waits stand in one line, and a commit wakes only its first.
   */
  line(args: A): string;
  found(result: R): boolean;
  worthTrying(context: GraphContext, args: A): boolean;
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
  /** Who may accept a submission in this project. */
  review: ReviewRule;
  /** The remote request's id and fingerprint, when it has one: a batch remembers its answer with its commit. */
  key?: RequestKey;
}

/** An operation on one project as a whole (init, snapshots, restore, batch). */
export interface ProjectOperation<S extends ArgsSpec = any, R = any> extends Declaration<S, R> {
  readonly scope: 'project';
  parse(raw: unknown): ArgsOf<S>;
  run(services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
}


export type Operation = GraphOperation | ProjectOperation | HostOperation;
