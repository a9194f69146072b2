import { Command, Option } from 'clipanion';
import { bool, integer } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class StatusCommand extends TaskdagCommand {
  static override paths = [['status']];
  static override usage = Command.Usage({
    description: 'The project at a glance: summary counts, tasks and gates by status, stale-claim alerts',
    details:
      'Filters narrow every group; `in_progress` lists everyone\'s work unless `--claimed-by` narrows it. `--stale-ms` (default 7200000, two hours) sets when a claim is stale; `--limit` (default 100) caps each list; `summary` counts before the cap.',
    examples: [
      ['Everything open in one initiative', '$0 status --initiative billing'],
      ['My claims, stale after ten minutes', '$0 status --claimed-by alice --stale-ms 600000'],
      ['Every group, done and canceled included', '$0 status --all --limit 20'],
    ],
  });

  initiative = Option.String('--initiative');
  kind = Option.String('--kind', { description: 'task, gate or knowledge' });
  status = Option.String('--status', { description: 'A (derived) status, e.g. ready' });
  domain = Option.String('--domain');
  claimedBy = Option.String('--claimed-by');
  staleMs = Option.String('--stale-ms', { description: 'Claim age that counts as stale (ms)' });
  limit = Option.String('--limit', { description: 'Entries per list' });
  all = Option.String('--all', { tolerateBoolean: true, description: 'Add done, canceled, resolved, superseded and deprecated groups' });

  async execute() {
    await this.perform('status', {
      initiative: this.initiative,
      kind: this.kind,
      status: this.status,
      domain: this.domain,
      claimed_by: this.claimedBy,
      stale_ms: integer('--stale-ms', this.staleMs),
      limit: integer('--limit', this.limit, 1),
      all: bool('--all', this.all),
    });
  }
}
