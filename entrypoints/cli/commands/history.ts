import { Command, Option } from 'clipanion';
import { integer } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class HistoryCommand extends TaskdagCommand {
  static override paths = [['history']];
  static override usage = Command.Usage({
    description: 'Log entries about a node: its own, and those whose note names it',
    details: '`--limit N` (default 100) keeps the N most recent entries, still in log order.',
    examples: [['The last five events of a task', '$0 history T-invoice-api --limit 5']],
  });

  limit = Option.String('--limit', { description: 'Most recent entries to keep' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('history', { id: this.id, limit: integer('--limit', this.limit, 1) });
  }
}
