import { OPERATIONS } from '../../application/operations/index.js';
import { OnboardCommand } from './onboard-command.js';
import { commandFor } from './operation-command.js';

/** One command per declared operation, in the declarations' order: each prints one JSON value. */
export const OPERATION_COMMANDS = OPERATIONS.map(commandFor);

/** Every command of the CLI: the operations, then `onboard`, which prints Markdown rather than JSON. */
export const COMMANDS = [...OPERATION_COMMANDS, OnboardCommand];
