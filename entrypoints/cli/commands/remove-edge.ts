import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class RemoveEdgeCommand extends TaskdagCommand {
  static override paths = [['remove-edge']];
  static override usage = Command.Usage({
    description: 'Remove exactly one edge; removing an absent edge succeeds with removed: false',
    examples: [['Unblock a task by hand', '$0 remove-edge G-schema T-invoice-api --type BLOCKS --as alice']],
  });

  type = Option.String('--type', { description: 'BLOCKS, SUPERSEDES or DERIVED_FROM (required)' });
  from = Option.String({ required: false });
  to = Option.String({ required: false });

  async execute() {
    await this.perform('remove-edge', { from: this.from, to: this.to, type: this.type });
  }
}
