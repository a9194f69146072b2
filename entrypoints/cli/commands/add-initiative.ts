import { Command, Option } from 'clipanion';
import { TaskdagCommand } from '../taskdag-command.js';

export class AddInitiativeCommand extends TaskdagCommand {
  static override paths = [['add-initiative']];
  static override usage = Command.Usage({
    description: 'Register an initiative; nodes must name a registered one',
    examples: [['Register an initiative', '$0 add-initiative billing --desc "Invoices and payments" --as alice']],
  });

  desc = Option.String('--desc', { description: 'What the initiative is about' });
  name = Option.String({ required: false });

  async execute() {
    await this.perform('add-initiative', { name: this.name, desc: this.desc });
  }
}
