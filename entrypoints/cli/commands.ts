import { OPERATIONS } from '../../application/operations/index.js';
import { commandFor } from './operation-command.js';

/** Every command of the CLI, one per declared operation, in the declarations' order. */
export const COMMANDS = OPERATIONS.map(commandFor);
