import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class AcceptCommand extends TaskdagCommand {
  static override paths = [['accept']];
  static override usage = Command.Usage({
    description: 'Accept a submitted task: it is done, and the tasks it unblocked are listed in newly_ready',
    examples: [['Accept after review', '$0 accept T-refunds --as bob']],
  });

  id = Option.String({ required: false });

  async execute() {
    await this.perform('accept', { id: this.id });
  }
}
