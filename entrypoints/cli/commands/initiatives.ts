import { Command, Option } from 'clipanion';
import { bool } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class InitiativesCommand extends TaskdagCommand {
  static override paths = [['initiatives']];
  static override usage = Command.Usage({
    description: 'Registered initiatives with their node counts, and nodes of unregistered initiatives',
    examples: [
      ['Initiatives that hold work', '$0 initiatives'],
      ['Empty ones too', '$0 initiatives --all'],
    ],
  });

  all = Option.String('--all', { tolerateBoolean: true, description: 'Include initiatives without nodes' });

  async execute() {
    await this.perform('initiatives', { all: bool('--all', this.all) });
  }
}
