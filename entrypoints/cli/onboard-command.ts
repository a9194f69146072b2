import { agentGuide } from '../../application/agent-guide.js';
import { usageOf, type CommandDeclaration } from './declared-command.js';
import { TaskdagCommand } from './taskdag-command.js';

/**
 * `taskdag onboard`: the workflow guide as a Markdown section for AGENTS.md (or CLAUDE.md), for
 * agents that use the command line rather than MCP. It prints Markdown, not JSON: its output is
 * meant to be appended to a file, as `--help` is meant to be read.
 */
export class OnboardCommand extends TaskdagCommand {
  static readonly declaration: CommandDeclaration = {
    name: 'onboard',
    summary: 'Print the agent workflow guide as a Markdown section for AGENTS.md (not JSON)',
    examples: [['Teach the agents of this repository', '$0 onboard >> AGENTS.md']],
    args: {},
    needsAgent: false,
  };
  static override paths = [['onboard']];
  static override usage = usageOf(OnboardCommand.declaration);

  async execute() {
    this.context.stdout.write(agentGuide('cli'));
  }
}
