import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class AddNoteCommand extends TaskdagCommand {
  static override paths = [['add-note']];
  static override usage = Command.Usage({
    description: 'Append a timestamped note to a node; the words after the id are the note',
    examples: [['Leave a note', '$0 add-note T-invoice-api Waiting on G-schema before starting --as alice']],
  });

  // One rest list, not a positional plus a rest: clipanion fills an optional positional last.
  words = Option.Rest({ name: 'id> <text' });

  async execute() {
    const [id, ...text] = this.words;
    await this.perform('add-note', { id, text: text.length > 0 ? text.join(' ') : undefined });
  }
}
