import { Command, Option } from 'clipanion';
import { list } from '../flags.js';
import { NodeCreationCommand } from './node-options.js';

export class AddGateCommand extends NodeCreationCommand {
  static override paths = [['add-gate']];
  static override usage = Command.Usage({
    description: 'Create a gate: a decision that work can wait on',
    details: '`--supersedes OLD` replaces an open or resolved gate: OLD becomes `superseded` and its blockers move to the new gate.',
    examples: [
      ['A decision to make', '$0 add-gate G-schema --initiative billing --title "Choose schema" --body "Two candidates" --purpose "Pick one" --as alice'],
      ['Replace a decision', '$0 add-gate G-schema-v2 --initiative billing --title "Choose schema v2" --body "Revisited" --purpose "Pick again" --supersedes G-schema --as alice'],
    ],
  });

  purpose = Option.String('--purpose', { description: 'Why the decision is needed (required)' });
  resolutionMode = Option.String('--resolution-mode', { description: 'How it gets decided' });
  blockedBy = Option.String('--blocked-by', { description: 'Comma-separated blocker ids' });
  supersedes = Option.String('--supersedes', { description: 'The gate this one replaces' });
  id = Option.String({ required: false });

  async execute() {
    await this.perform('add-gate', {
      id: this.id,
      ...this.commonArgs(),
      purpose: this.purpose,
      resolution_mode: this.resolutionMode,
      blocked_by: list(this.blockedBy),
      supersedes: this.supersedes,
    });
  }
}
