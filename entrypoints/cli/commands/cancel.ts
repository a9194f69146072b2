import { Command } from 'clipanion';
import { ReasonCommand } from './reason-command.js';

export class CancelCommand extends ReasonCommand {
  static override paths = [['cancel']];
  static override usage = Command.Usage({
    description: 'Cancel a task (its holder, orchestrator or recovery) or an open gate (orchestrator or recovery)',
    examples: [['Drop a task', '$0 cancel T-receipts --reason "Out of scope" --as orchestrator']],
  });

  async execute() {
    await this.performWithReason('cancel');
  }
}
