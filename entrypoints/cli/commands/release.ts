import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class ReleaseCommand extends TaskdagCommand {
  static override paths = [['release']];
  static override usage = Command.Usage({
    description: 'Give a claimed task back to the pool (the holder, orchestrator or recovery)',
    details: 'Releasing a task nobody holds succeeds with `released: false` and changes nothing.',
    examples: [['Hand a task back', '$0 release T-invoice-schema --as alice']],
  });

  id = Option.String({ required: false });

  async execute() {
    await this.perform('release', { id: this.id });
  }
}
