import path from 'node:path';
import type { OPERATIONS } from '../../application/operations/index.js';
import type { Static } from '../../application/contract/schema.js';
import { isDomainError, type ErrorCode } from '../../domain/errors.js';
import { runInCheckout } from '../compose.js';
import { libraryHostPorts } from './host-ports.js';

type Declared = (typeof OPERATIONS)[number];

/** The name of every operation: the command names of the CLI (`take`, `add-task`, ...). */
export type OperationName = Declared['name'];
type Named<N extends OperationName> = Extract<Declared, { name: N }>;
/** An operation's arguments: its flags in snake_case, as in a batch (`{ id, blocked_by: [] }`). */
export type ArgumentsOf<N extends OperationName> = ReturnType<Named<N>['parse']>;
/** An operation's result: the JSON its command prints (see `schemas/<name>.output.json`). */
export type ResultOf<N extends OperationName> = Static<Named<N>['result']>;

export interface OpenOptions {
  /** The checkout: a directory holding `.taskdag.json`, or below one (as git finds its repository). */
  checkout: string;
  /** The storage root; default `$TASKDAG_HOME`, else `~/.taskdag`. */
  home?: string;
}

export interface RunOptions {
  /** The acting agent; mutations need one (MISSING_AGENT otherwise). */
  agent?: string;
}

/** A project as its checkout names it; every call is the command of the same name, in process. */
export interface Project {
  readonly checkout: string;
  run<N extends OperationName>(operation: N, args: ArgumentsOf<N>, options?: RunOptions): Promise<ResultOf<N>>;
}

/** A failure, as the CLI prints it: a stable `code` (docs/errors.md) and `details`; never parse `message`. */
export interface TaskdagFailure {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

/**
 * Opens the project of a checkout, in local mode. `run` takes the same operations, arguments and
 * rules as the command line and resolves to the same JSON; failures reject with an error whose
 * `code` and `details` are those of the CLI's envelope. `run('init')` creates the checkout's
 * project when there is none yet.
 */
export async function openProject(options: OpenOptions): Promise<Project> {
  const checkout = path.resolve(options.checkout);
  const env = { ...process.env, ...(options.home === undefined ? {} : { TASKDAG_HOME: path.resolve(options.home) }) };
  return {
    checkout,
    run: async (operation, args, runOptions = {}) =>
      (await runInCheckout({ cwd: checkout, env, project: undefined }, { operation, args, agent: runOptions.agent ?? null }, libraryHostPorts)) as never,
  };
}

/** Whether `error` is a taskdag failure (it has a stable `code`), as `openProject` and `run` reject with. */
export function isTaskdagFailure(error: unknown): error is Error & TaskdagFailure {
  return isDomainError(error);
}
