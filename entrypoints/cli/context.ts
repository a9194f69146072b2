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

/** Who runs a command: its own `--as`, else the global `--as`, else TASKDAG_AGENT; null when that is blank. */
export function agentOf(as: string | undefined, globals: GlobalFlags, env: Record<string, string | undefined>): AgentName | null {
  const agent = as ?? globals.as ?? env.TASKDAG_AGENT;
  return agent && agent.trim() !== '' ? agent : null;
}
