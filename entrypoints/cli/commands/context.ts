import { Command, Option } from 'clipanion';
import { integer } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class ContextCommand extends TaskdagCommand {
  static override paths = [['context']];
  static override usage = Command.Usage({
    description: 'Everything to work on one node: blockers, matching knowledge, alerts and the actions you may take',
    details: '`allowed_actions` is computed for the agent given by `--as` (or TASKDAG_AGENT); it is empty without one.',
    examples: [
      ['Before starting a task', '$0 context T-invoice-api --as alice'],
      ['Claims older than an hour count as stale', '$0 context T-invoice-api --stale-ms 3600000 --as alice'],
    ],
  });

  staleMs = Option.String('--stale-ms', { description: 'Claim age that counts as stale (ms, default two hours)' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('context', { id: this.id, stale_ms: integer('--stale-ms', this.staleMs) });
  }
}
