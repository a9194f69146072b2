import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class RestoreCommand extends TaskdagCommand {
  static override paths = [['restore']];
  static override usage = Command.Usage({
    description: 'Replace the live state with a snapshot (the displaced state is kept as a pre-restore snapshot)',
    details: 'The snapshot is checked whole (its pair, size, sha256 and every collection) before anything changes; on any problem the live state is left untouched.',
    examples: [
      [
        'Go back to the newest snapshot',
        '$0 restore "$($0 snapshots | node -p \'JSON.parse(fs.readFileSync(0)).snapshots[0].id\')" --as alice',
      ],
    ],
  });

  snapshotId = Option.String({ required: false });

  async execute() {
    await this.perform('restore', { snapshot_id: this.snapshotId });
  }
}
