import type { Operation } from '../../application/operation.js';
import { runInCheckoutOf, type HostPortsFor } from '../compose.js';
import { answerOn } from './answer.js';
import { agentOf } from './context.js';
import { settle } from './exit-status.js';
import { FdWriter } from './fd-writer.js';
import { splitGlobalFlags } from './globals.js';
import { fieldsOf, operationArgs, optionsByName, plainOptions } from './operation-words.js';

/**
 * A command line in plain words (`show T-1`, `update T-1 --title x`) run by a program of its own
 * that holds only `operations` (the graph reads', the point commands'), so that it loads in a
 * fraction of the whole program's time (BENCHMARKS.md). A line for a command it does not serve,
 * or whose words need clipanion's parser, is handed to `whole`, the whole program, before
 * anything has run: every answer is the whole program's, the same operations, checks and
 * envelope reached by a shorter way. `served` are the commands the program runs; `operations`
 * its registry, which may hold more (the actions a preview runs, application/policy.ts).
 */
export function runPlainWords(
  served: readonly Operation[],
  operations: readonly Operation[],
  argv: string[],
  whole: (argv: string[]) => Promise<void>,
  hostPortsFor: HostPortsFor,
): Promise<void> {
  const { globals, rest } = splitGlobalFlags(argv);
  const operation = served.find((candidate) => candidate.name === rest[0]);
  if (operation === undefined) return whole(argv);
  const { flags, positionals } = fieldsOf(operation);
  const options = plainOptions(rest.slice(1), optionsByName(operation, flags), positionals);
  if (options === null) return whole(argv);

  const { emit, fail } = answerOn(new FdWriter(1), globals);
  const environment = { cwd: process.cwd(), env: process.env, project: globals.project };
  const answered = async () => {
    const args = operationArgs(flags, positionals, options);
    const agent = agentOf(options.as as string | undefined, globals, environment.env);
    emit(await runInCheckoutOf(operations, environment, { operation: operation.name, args, agent, printed: true }, hostPortsFor));
    return 0;
  };
  return settle(answered().catch(fail));
}
