import type { CommandClass } from 'clipanion';
import { OPERATIONS } from '../../application/operations/index.js';
import type { TaskdagContext } from './context.js';
import { McpCommand } from './mcp-command.js';
import { OnboardCommand } from './onboard-command.js';
import { commandFor } from './operation-command.js';
import { ServerRunCommand } from './server-run-command.js';

type Taskdag = CommandClass<TaskdagContext>;

/**
 * The commands that are processes rather than operations and do not print one JSON value on
 * success (`server run` and `mcp` serve until stopped, `onboard` prints Markdown).
 */
const PROCESS_COMMANDS: readonly Taskdag[] = [ServerRunCommand, McpCommand, OnboardCommand];

/** One command per declared operation, in the declarations' order: each prints one JSON value. */
export function operationCommands(): Taskdag[] {
  return OPERATIONS.map(commandFor);
}

/** Every command of the CLI: the operations, then the process commands. */
export function allCommands(): Taskdag[] {
  return [...operationCommands(), ...PROCESS_COMMANDS];
}

/**
 * The commands whose path starts with `word`, in `allCommands()` order. An operation's command
 * class is built from its declaration here, on demand: building all of them would cost every
 * command line the classes of some forty commands it does not run.
 */
export function commandsNamed(word: string): Taskdag[] {
  const operations = OPERATIONS.filter((operation) => operation.name.split(' ')[0] === word).map(commandFor);
  return [...operations, ...PROCESS_COMMANDS.filter((command) => (command.paths ?? []).some((path) => path[0] === word))];
}
