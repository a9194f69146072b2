import { Command } from 'clipanion';
import { ReasonCommand } from './reason-command.js';

export class DeprecateKnowledgeCommand extends ReasonCommand {
  static override paths = [['deprecate-knowledge']];
  static override usage = Command.Usage({
    description: 'Retire a knowledge item: it stops being served as guidance',
    examples: [['Retire guidance', '$0 deprecate-knowledge K-cents --reason "We moved to a money library" --as alice']],
  });

  async execute() {
    await this.performWithReason('deprecate-knowledge');
  }
}
