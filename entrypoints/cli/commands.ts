import { OPERATIONS } from '../../application/operations/index.js';
import { commandFor } from './operation-command.js';
import { ServerRunCommand } from './server-run-command.js';

/**
 * Every command of the CLI: one per declared operation, in the declarations' order, then the
 * commands that are processes rather than operations (they run until stopped).
 */
export const COMMANDS = [...OPERATIONS.map(commandFor), ServerRunCommand];
