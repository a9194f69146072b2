import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class TakeCommand extends TaskdagCommand {
  static override paths = [['take']];
  static override usage = Command.Usage({
    description: 'Claim a ready task; prints the task, its context and whether this call claimed it',
    details:
      'Taking a task you already hold succeeds with `freshly_claimed: false`. Another agent\'s task fails with ALREADY_CLAIMED, except for `orchestrator`, who takes it over. A task that is not ready fails with NOT_READY.',
    examples: [['Claim a task', '$0 take T-invoice-schema --as alice']],
  });

  id = Option.String({ required: false });

  async execute() {
    await this.perform('take', { id: this.id });
  }
}
