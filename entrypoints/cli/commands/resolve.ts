import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class ResolveCommand extends TaskdagCommand {
  static override paths = [['resolve']];
  static override usage = Command.Usage({
    description: 'Decide an open gate; the tasks it unblocked are listed in newly_ready',
    examples: [['Record a decision', '$0 resolve G-schema-v2 --choice "JSON columns" --rationale "Fewer migrations" --as bob']],
  });

  choice = Option.String('--choice', { description: 'What was decided (required)' });
  rationale = Option.String('--rationale', { description: 'Why (required)' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('resolve', { id: this.id, choice: this.choice, rationale: this.rationale });
  }
}
