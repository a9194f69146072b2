import { OPERATIONS } from '../../application/operations/index.js';
import type { CommandDeclaration, DeclaredCommand } from './declared-command.js';
import { McpCommand } from './mcp-command.js';
import { OnboardCommand } from './onboard-command.js';
import { commandFor } from './operation-command.js';
import { ServerRunCommand } from './server-run-command.js';

/**
 * The commands that are processes rather than operations and do not print one JSON value on
 * success (`server run` and `mcp` serve until stopped, `onboard` prints Markdown).
 */
const PROCESS_COMMANDS: readonly DeclaredCommand[] = [ServerRunCommand, McpCommand, OnboardCommand];

/** One command per declared operation, in the declarations' order: each prints one JSON value. */
export function operationCommands(): DeclaredCommand[] {
  return OPERATIONS.map(commandFor);
}

/** Every command of the CLI: the operations, then the process commands. */
export function allCommands(): DeclaredCommand[] {
  return [...operationCommands(), ...PROCESS_COMMANDS];
}

/** What every command declares, in `allCommands()` order, without building a command class. */
export function commandDeclarations(): CommandDeclaration[] {
  return [...OPERATIONS, ...PROCESS_COMMANDS.map((command) => command.declaration)];
}

/**
 * The command the leading `words` name (`server run ...` is `server run`), or null. Only that
 * command's class is built: building all of them would cost every command line the classes of
 * some forty commands it does not run.
 */
export function commandAt(words: readonly string[]): DeclaredCommand | null {
  const declaration = commandDeclarations().find((candidate) => candidate.name.split(' ').every((word, index) => words[index] === word));
  if (declaration === undefined) return null;
  const operation = OPERATIONS.find((candidate) => candidate === declaration);
  return operation ? commandFor(operation) : PROCESS_COMMANDS.find((command) => command.declaration === declaration)!;
}
