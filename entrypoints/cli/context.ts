import type { BaseContext } from 'clipanion';
import type { AgentName } from '../../domain/model.js';

/** Flags that precede the command (spec 1.1). */
export interface GlobalFlags {
  project?: string;
  as?: string;
  noWarnings: boolean;
}

export type TaskdagContext = BaseContext & {
  cwd: string;
  globals: GlobalFlags;
  /** Runs an operation on the checkout's project (or the host); help and usage errors never reach it. */
  run: (operation: string, args: Record<string, unknown>, agent: AgentName | null) => Promise<unknown>;
  /** The one JSON value a command prints. */
  emit: (value: unknown) => void;
};
