import { Command, Option } from 'clipanion';
import { bool } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class MigrateCommand extends TaskdagCommand {
  static override paths = [['migrate']];
  static override usage = Command.Usage({
    description: 'Import projects written before schema 1 (see docs/migrate.md)',
    details: 'Stop every writer, the board and the server first. `--dry-run` reports each project\'s form and writes nothing; a real import backs each project up as a pre-migrate snapshot, and running it again changes nothing.',
    examples: [
      ['See what would be imported, for every project', '$0 migrate --all --dry-run'],
      ['Import this checkout\'s project', '$0 migrate --as alice'],
    ],
  });

  all = Option.String('--all', { tolerateBoolean: true, description: 'Every project under TASKDAG_HOME, not only this checkout\'s' });
  dryRun = Option.String('--dry-run', { tolerateBoolean: true, description: 'Report each project\'s form; write nothing' });

  async execute() {
    await this.perform('migrate', { all: bool('--all', this.all), dry_run: bool('--dry-run', this.dryRun) });
  }
}
