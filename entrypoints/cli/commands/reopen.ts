import { Command } from 'clipanion';
import { ReasonCommand } from './reason-command.js';

export class ReopenCommand extends ReasonCommand {
  static override paths = [['reopen']];
  static override usage = Command.Usage({
    description: 'Reopen a done task or a resolved gate (whoever completed it, orchestrator or recovery)',
    examples: [['Reopen a decision', '$0 reopen G-schema-v2 --reason "Requirements changed" --as orchestrator']],
  });

  async execute() {
    await this.performWithReason('reopen');
  }
}
