import { Command, Option } from 'clipanion';
import { agentOf, type TaskdagContext } from './context.js';

/**
 * What every command shares: the per-command `--as`, identity resolution (`--as`, then the global
 * `--as`, then TASKDAG_AGENT), and running one operation whose result is the command's output.
 */
export abstract class TaskdagCommand extends Command<TaskdagContext> {
  as = Option.String('--as', { description: 'Agent identity (falls back to the global --as, then TASKDAG_AGENT)' });

  protected agent(): string | null {
    return agentOf(this.as, this.context.globals, this.context.env);
  }

  protected async perform(operation: string, args: Record<string, unknown>): Promise<void> {
    this.context.emit(await this.context.run(operation, args, this.agent()));
  }
}
