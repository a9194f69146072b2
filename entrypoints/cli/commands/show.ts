import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class ShowCommand extends TaskdagCommand {
  static override paths = [['show']];
  static override usage = Command.Usage({
    description: 'Print one node and its type (task, gate or knowledge)',
    examples: [['Look at a task', '$0 show T-invoice-api']],
  });

  id = Option.String({ required: false });

  async execute() {
    await this.perform('show', { id: this.id });
  }
}
