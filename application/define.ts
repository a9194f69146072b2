import type { AgentName, Graph, NodeId } from '../domain/model.js';
import { parseArgs, type ArgsOf, type ArgsSpec } from './args.js';
import { lazily, type Schema } from './contract/schema.js';
import type { GraphContext, GraphOperation, HostOperation, HostServices, OperationWaiting, ProjectOperation, ProjectServices } from './operation.js';

interface Common<N extends string, S extends ArgsSpec, R> {
  name: N;
  summary: string;
  details?: string;
  examples: readonly (readonly [string, string])[];
  args: S;
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

function declaration<N extends string, S extends ArgsSpec, R>(definition: Common<N, S, R>) {
  return {
    name: definition.name as N,
    summary: definition.summary,
    ...(definition.details === undefined ? {} : { details: definition.details }),
    examples: definition.examples,
    args: definition.args,
    mutates: definition.mutates,
    needsAgent: definition.needsAgent ?? definition.mutates,
    ...(definition.usesAgent ? { usesAgent: true } : {}),
    remote: definition.remote ?? true,
    ...(definition.argsFromDocument ? { argsFromDocument: true } : {}),
    parse: (raw: unknown) => parseArgs(definition.name, raw, definition.args),
  };
}

/** `operation` with its `result` schema, built when first read. */
function withResult<O extends object, R>(operation: O, result: () => Schema<R>): O & { readonly result: Schema<R> } {
  return Object.defineProperty(operation, 'result', { get: lazily(result), enumerable: true }) as O & { readonly result: Schema<R> };
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
export function graphOperation<N extends string, S extends ArgsSpec, R, P>(
  definition: Common<N, S, R> & {
    needsLog?: boolean;
    logNaming?(args: ArgsOf<S>): NodeId;
    run(context: GraphContext, args: ArgsOf<S>): P;
    finish?(context: GraphContext, partial: P, args: ArgsOf<S>): R;
    prepare?(graph: Graph, args: ArgsOf<S>): void;
    waiting?: OperationWaiting<ArgsOf<S>, R>;
  },
): GraphOperation<S, R, P> & { readonly name: N } {
  return withResult(
    {
      ...declaration(definition),
      scope: 'graph' as const,
      needsLog: definition.needsLog ?? false,
      ...(definition.logNaming ? { logNaming: definition.logNaming } : {}),
      run: definition.run,
      ...(definition.finish ? { finish: definition.finish } : {}),
      ...(definition.prepare ? { prepare: definition.prepare } : {}),
      ...(definition.waiting ? { waiting: definition.waiting } : {}),
    },
    definition.result,
  );
}

/** Declares an operation on one project as a whole. */
export function projectOperation<const N extends string, S extends ArgsSpec, R>(
  definition: Common<N, S, R> & { run(services: ProjectServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R> },
): ProjectOperation<S, R> & { readonly name: N } {
  return withResult({ ...declaration(definition), scope: 'project' as const, run: definition.run }, definition.result);
}

/** Declares an operation on the host (every project in the storage root). */
export function hostOperation<const N extends string, S extends ArgsSpec, R>(
  definition: Common<N, S, R> & {
    /** Defaults to true. */
    inLinkedCheckout?: boolean;
    run(services: HostServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
  },
): HostOperation<S, R> & { readonly name: N } {
  return withResult(
    {
      ...declaration(definition),
      scope: 'host' as const,
      remote: definition.remote ?? false,
      inLinkedCheckout: definition.inLinkedCheckout ?? true,
      run: definition.run,
    },
    definition.result,
  );
}
