import { Command, Option } from 'clipanion';
import { bool } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class InitCommand extends TaskdagCommand {
  static override paths = [['init']];
  static override usage = Command.Usage({
    description: 'Create the project state (and .taskdag.json) for this checkout',
    details: 'Over an existing state, `init` changes nothing; `--force` is an intentional reset that first takes a `force-init` snapshot.',
    examples: [
      ['Start a project in the current directory', '$0 init'],
      ['Reset a project on purpose (needs an agent)', '$0 init --force --as alice'],
    ],
  });

  force = Option.String('--force', { tolerateBoolean: true, description: 'Reset an existing state (a snapshot is taken first)' });

  async execute() {
    await this.perform('init', { force: bool('--force', this.force) });
  }
}
