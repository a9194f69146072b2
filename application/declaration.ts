import type { ArgsSpec } from './args.js';
import type { Schema } from './contract/schema.js';

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
  /**
   * Whether an agent identity, though not required, is read when given: it shapes the answer
   * (`context`'s allowed actions) or one form needs it (`init --force`). Help shows `--as` only
   * on operations that need or use one.
   */
  readonly usesAgent?: boolean;
  /** Whether a linked checkout may run it on its server; `false` answers REMOTE_UNSUPPORTED_OPERATION there. */
  readonly remote: boolean;
  /**
   * Its arguments are one JSON document (a batch) rather than flags: the command line reads it
   * from `--file <path>` or `--stdin`.
   */
  readonly argsFromDocument?: boolean;
}
