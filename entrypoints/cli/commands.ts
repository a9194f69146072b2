import { OPERATIONS } from '../../application/operations/index.js';
import { McpCommand } from './mcp-command.js';
import { OnboardCommand } from './onboard-command.js';
import { commandFor } from './operation-command.js';
import { ServerRunCommand } from './server-run-command.js';

/** One command per declared operation, in the declarations' order: each prints one JSON value. */
export const OPERATION_COMMANDS = OPERATIONS.map(commandFor);

/**
 * Every command of the CLI: the operations, then those that are processes rather than operations
 * and do not print one JSON value on success (`server run` and `mcp` serve until stopped,
 * `onboard` prints Markdown).
 */
export const COMMANDS = [...OPERATION_COMMANDS, ServerRunCommand, McpCommand, OnboardCommand];
