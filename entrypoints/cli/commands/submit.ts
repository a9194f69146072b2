import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class SubmitCommand extends TaskdagCommand {
  static override paths = [['submit']];
  static override usage = Command.Usage({
    description: 'Hand in a task you hold for review, with the evidence in --note',
    examples: [
      ['Submit work', '$0 submit T-refunds --note "Refund endpoint done; see PR 42" --as alice'],
      ['Submit with a pointer to the evidence', '$0 submit T-receipts --note "Receipts render; screenshots in PR 43" --as alice'],
    ],
  });

  note = Option.String('--note', { description: 'Delivery evidence (required)' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('submit', { id: this.id, note: this.note });
  }
}
