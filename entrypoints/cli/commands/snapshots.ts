import { Command } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class SnapshotsCommand extends TaskdagCommand {
  static override paths = [['snapshots']];
  static override usage = Command.Usage({
    description: 'List the recoverable snapshots of the project, newest first',
    details: 'Snapshots are taken by `init --force` (force-init), `init` over a corrupt state (corrupt-recovery), `restore` (pre-restore) and `migrate` (pre-migrate).',
    examples: [['List the snapshots', '$0 snapshots']],
  });

  async execute() {
    await this.perform('snapshots', {});
  }
}
