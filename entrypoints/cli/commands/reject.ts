import { Command } from 'clipanion';
import { ReasonCommand } from './reason-command.js';

export class RejectCommand extends ReasonCommand {
  static override paths = [['reject']];
  static override usage = Command.Usage({
    description: 'Send a submitted task back to open; the reason goes into the log entry',
    examples: [['Reject with a reason', '$0 reject T-receipts --reason "No test for empty receipts" --as bob']],
  });

  async execute() {
    await this.performWithReason('reject');
  }
}
