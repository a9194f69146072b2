import { Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

/** Commands of the form `<command> <id> --reason <text>` (reject, reopen, cancel, deprecate-knowledge). */
export abstract class ReasonCommand extends TaskdagCommand {
  reason = Option.String('--reason', { description: 'Why (required; recorded in the log)' });
  id = Option.String({ required: false });

  protected async performWithReason(operation: string): Promise<void> {
    await this.perform(operation, { id: this.id, reason: this.reason });
  }
}
