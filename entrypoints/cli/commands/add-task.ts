import { Command, Option } from 'clipanion';
import { list } from '../flags.js';
import { NodeCreationCommand } from './node-options.js';

export class AddTaskCommand extends NodeCreationCommand {
  static override paths = [['add-task']];
  static override usage = Command.Usage({
    description: 'Create a task',
    details: '`--blocked-by` is required: pass `--blocked-by ""` when the task has no blockers.',
    examples: [
      [
        'A task with no blockers',
        '$0 add-task T-invoice-schema --initiative billing --title "Draft invoice schema" --body "Fields and types" --acceptance "Schema reviewed" --blocked-by "" --as alice',
      ],
      [
        'A task waiting on another, with tags and metadata',
        '$0 add-task T-invoice-api --initiative billing --title "Invoice API" --body "REST endpoints" --acceptance "Tests pass" --blocked-by T-invoice-schema --tags api,backend --meta \'{"points":3}\' --as alice',
      ],
    ],
  });

  acceptance = Option.String('--acceptance', { description: 'How a reviewer knows it is done (required)' });
  definition = Option.String('--definition', { description: 'Definition of the work' });
  blockedBy = Option.String('--blocked-by', { description: 'Comma-separated blocker ids; "" for none (required)' });
  supersedes = Option.String('--supersedes', { description: 'Not allowed on tasks' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('add-task', {
      id: this.id,
      ...this.commonArgs(),
      acceptance: this.acceptance,
      definition: this.definition,
      blocked_by: list(this.blockedBy),
      supersedes: this.supersedes,
    });
  }
}
