import { Command } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class StateCommand extends TaskdagCommand {
  static override paths = [['state']];
  static override usage = Command.Usage({
    description: 'Print the whole state (schema 1): the same state always prints the same bytes',
    examples: [['Dump the state', '$0 state']],
  });

  async execute() {
    await this.perform('state', {});
  }
}
