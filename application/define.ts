import type { AgentName, Graph, NodeId } from '../domain/model.js';
import { parseArgs, type ArgsOf, type ArgsSpec } from './args.js';
import type { Schema } from './contract/schema.js';
import type { GraphContext, GraphOperation, HostOperation, HostServices, OperationWaiting, ProjectOperation, ProjectServices } from './operation.js';

interface Common<N extends string, S extends ArgsSpec, R> {
  name: N;
  summary: string;
  details?: string;
  examples: readonly (readonly [string, string])[];
  /**
   * Built on first use, as `result` is: a program declares every operation it serves when it
   * loads, yet a command reads the arguments of its own operation only. Each argument declared
   * at load cost the point commands' program about 20 k instructions (its validator's kind, its
   * options), some 1.5 M for the arguments of operations the command never ran (BENCHMARKS.md).
   */
  args: () => S;
  /** Built on first use: a command builds the result schemas of its own operation only. */
  result: () => Schema<R>;
  mutates: boolean;
  /** Defaults to `mutates`. */
  needsAgent?: boolean;
  /** Reads the identity when given, without requiring it (see Declaration.usesAgent). */
  usesAgent?: boolean;
  /** Defaults to true. */
  remote?: boolean;
  argsFromDocument?: boolean;
}

/**
 * An operation's declaration, its arguments and result schema built when first read (`args`,
 * `result`: getters on the prototype, so declaring one defines no property of its own).
 */
class Declared<N extends string, S extends ArgsSpec, R> {
  readonly name: N;
  readonly summary: string;
  declare readonly details?: string;
  readonly examples: readonly (readonly [string, string])[];
  readonly mutates: boolean;
  readonly needsAgent: boolean;
  declare readonly usesAgent?: boolean;
  readonly remote: boolean;
  declare readonly argsFromDocument?: boolean;
  private readonly argsOf: () => S;
  private readonly resultOf: () => Schema<R>;
  private builtArgs: S | undefined = undefined;
  private builtResult: Schema<R> | undefined = undefined;

  /** `remoteByDefault`: whether a linked checkout runs it on its server when the definition does not say. */
  constructor(definition: Common<N, S, R>, remoteByDefault = true) {
    this.name = definition.name;
    this.summary = definition.summary;
    if (definition.details !== undefined) this.details = definition.details;
    this.examples = definition.examples;
    this.mutates = definition.mutates;
    this.needsAgent = definition.needsAgent ?? definition.mutates;
    if (definition.usesAgent) this.usesAgent = true;
    this.remote = definition.remote ?? remoteByDefault;
    if (definition.argsFromDocument) this.argsFromDocument = true;
    this.argsOf = definition.args;
    this.resultOf = definition.result;
  }

  get args(): S {
    return (this.builtArgs ??= this.argsOf());
  }

  get result(): Schema<R> {
    return (this.builtResult ??= this.resultOf());
  }

  parse(raw: unknown): ArgsOf<S> {
    return parseArgs(this.name, raw, this.args);
  }
}

/** Declares an operation on a project's graph whose result is finished after the commit, outside the lock. */
export function graphOperation<const N extends string, S extends ArgsSpec, R, P>(
  definition: Common<N, S, R> & {
    needsLog?: boolean;
    logNaming?(args: ArgsOf<S>): NodeId;
    run(context: GraphContext, args: ArgsOf<S>): P;
    finish(context: GraphContext, partial: P, args: ArgsOf<S>): R;
    prepare?(graph: Graph, args: ArgsOf<S>): void;
    waiting?: OperationWaiting<ArgsOf<S>, R>;
  },
): GraphOperation<S, R, P> & { readonly name: N };
/** Declares an operation on a project's graph: its contract and its rule. */
export function graphOperation<const N extends string, S extends ArgsSpec, R>(
  definition: Common<N, S, R> & { needsLog?: boolean; logNaming?(args: ArgsOf<S>): NodeId; run(context: GraphContext, args: ArgsOf<S>): R },
): GraphOperation<S, R, R> & { readonly name: N };
export function graphOperation<N extends string, S extends ArgsSpec, R, P>(definition: GraphDefinition<N, S, R, P>): GraphOperation<S, R, P> & { readonly name: N } {
  return new DeclaredGraphOperation(definition);
}

class DeclaredGraphOperation<N extends string, S extends ArgsSpec, R, P> extends Declared<N, S, R> implements GraphOperation<S, R, P> {
  readonly scope = 'graph' as const;
  readonly needsLog: boolean;
  declare readonly logNaming?: (args: ArgsOf<S>) => NodeId;
  readonly run: (context: GraphContext, args: ArgsOf<S>) => P;
  declare readonly finish?: (context: GraphContext, partial: P, args: ArgsOf<S>) => R;
  declare readonly prepare?: (graph: Graph, args: ArgsOf<S>) => void;
  declare readonly waiting?: OperationWaiting<ArgsOf<S>, R>;

  constructor(definition: GraphDefinition<N, S, R, P>) {
    super(definition);
    this.needsLog = definition.needsLog ?? false;
    if (definition.logNaming) this.logNaming = definition.logNaming;
    this.run = definition.run;
    if (definition.finish) this.finish = definition.finish;
    if (definition.prepare) this.prepare = definition.prepare;
    if (definition.waiting) this.waiting = definition.waiting;
  }
}

type GraphDefinition<N extends string, S extends ArgsSpec, R, P> = Common<N, S, R> & {
  needsLog?: boolean;
  logNaming?(args: ArgsOf<S>): NodeId;
  run(context: GraphContext, args: ArgsOf<S>): P;
  finish?(context: GraphContext, partial: P, args: ArgsOf<S>): R;
  prepare?(graph: Graph, args: ArgsOf<S>): void;
  waiting?: OperationWaiting<ArgsOf<S>, R>;
};

/** Declares an operation on one project as a whole. */
export function projectOperation<const N extends string, S extends ArgsSpec, R>(
  definition: Common<N, S, R> & { run(services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R> },
): ProjectOperation<S, R> & { readonly name: N } {
  return new DeclaredProjectOperation(definition);
}

class DeclaredProjectOperation<N extends string, S extends ArgsSpec, R> extends Declared<N, S, R> implements ProjectOperation<S, R> {
  readonly scope = 'project' as const;
  readonly run: (services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null) => Promise<R>;

  constructor(definition: Common<N, S, R> & { run(services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R> }) {
    super(definition);
    this.run = definition.run;
  }
}

/** Declares an operation on the host (every project in the storage root). */
export function hostOperation<const N extends string, S extends ArgsSpec, R>(
  definition: Common<N, S, R> & {
    /** Defaults to true. */
    inLinkedCheckout?: boolean;
    run(services: HostServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
  },
): HostOperation<S, R> & { readonly name: N } {
  return new DeclaredHostOperation(definition);
}

class DeclaredHostOperation<N extends string, S extends ArgsSpec, R> extends Declared<N, S, R> implements HostOperation<S, R> {
  readonly scope = 'host' as const;
  readonly inLinkedCheckout: boolean;
  readonly run: (services: HostServices, args: ArgsOf<S>, agent: AgentName | null) => Promise<R>;

  constructor(definition: Common<N, S, R> & { inLinkedCheckout?: boolean; run(services: HostServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R> }) {
    super(definition, false);
    this.inLinkedCheckout = definition.inLinkedCheckout ?? true;
    this.run = definition.run;
  }
}
