import { Command, Option } from 'clipanion';
import { bool } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class SearchCommand extends TaskdagCommand {
  static override paths = [['search']];
  static override usage = Command.Usage({
    description: 'Find knowledge by a case-insensitive substring of its id, title, body, mitigation, domain, tags, refs or meta',
    examples: [
      ['Active knowledge about money', '$0 search cents'],
      ['Deprecated knowledge too', '$0 search "integer cents" --all'],
    ],
  });

  all = Option.String('--all', { tolerateBoolean: true, description: 'Include deprecated knowledge' });
  query = Option.String({ required: false });

  async execute() {
    await this.perform('search', { query: this.query, all: bool('--all', this.all) });
  }
}
