import type { BaseContext } from 'clipanion';
import type { OperationDispatcher } from '../../application/operation.js';

/** Flags that precede the command (spec 1.1). */
export interface GlobalFlags {
  project?: string;
  as?: string;
  noWarnings: boolean;
}

export type TaskdagContext = BaseContext & {
  cwd: string;
  globals: GlobalFlags;
  /** Built on first use, so help and usage errors never touch the store. */
  operations: () => OperationDispatcher;
  /** The one JSON value a command prints. */
  emit: (value: unknown) => void;
};
