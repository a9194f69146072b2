import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class AddEdgeCommand extends TaskdagCommand {
  static override paths = [['add-edge']];
  static override usage = Command.Usage({
    description: 'Raw escape hatch: add a typed edge between two nodes',
    details: 'BLOCKS goes from blocker to blocked; SUPERSEDES and DERIVED_FROM from the new node to the old one.',
    examples: [['Make a gate block a task', '$0 add-edge G-schema T-invoice-api --type BLOCKS --as alice']],
  });

  type = Option.String('--type', { description: 'BLOCKS, SUPERSEDES or DERIVED_FROM (required)' });
  from = Option.String({ required: false });
  to = Option.String({ required: false });

  async execute() {
    await this.perform('add-edge', { from: this.from, to: this.to, type: this.type });
  }
}
