import type { Operation } from '../../application/operation.js';
import { history } from '../../application/operations/history.js';
import { initiatives } from '../../application/operations/initiatives.js';
import { search } from '../../application/operations/search.js';
import { show } from '../../application/operations/show.js';
import { state } from '../../application/operations/state.js';
import { status } from '../../application/operations/status.js';
import { notServed, runInCheckoutOf, type HostPortsFor } from '../compose.js';
import { clientPortsOf } from '../host/client-ports.js';
import { answerOn } from './answer.js';
import { agentOf } from './context.js';
import { settle } from './exit-status.js';
import { FdWriter } from './fd-writer.js';
import { splitGlobalFlags } from './globals.js';
import { fieldsOf, operationArgs, optionsByName, plainOptions } from './operation-words.js';

/**
 * The operations this program serves: those that read a project's graph and whose answer needs
 * no other operation. `context` is not one: with policy plugins, its `allowed_actions` run each
 * action as a preview (application/policy.ts).
 */
export const GRAPH_READS: readonly Operation[] = [show, state, status, search, history, initiatives];

/**
 * The command line of a graph read written in plain words (`show T-1`, `status --limit 20`),
 * which is most of what agents run, as a program of its own (dist/taskdag-reads.js): it holds
 * those operations, the store and the answer, and none of the rest of the command line
 * (clipanion's parser, the help, every other operation), so it loads in about half the time of
 * the whole program (BENCHMARKS.md). Any other line (help, words clipanion must parse, another
 * command) is handed to `whole`, the whole program, before anything has run: every answer is
 * the whole program's, the same operations, checks and envelope reached by a shorter way.
 */
export function run(argv: string[], whole: (argv: string[]) => Promise<void>): Promise<void> {
  const { globals, rest } = splitGlobalFlags(argv);
  const operation = GRAPH_READS.find((read) => read.name === rest[0]);
  if (operation === undefined) return whole(argv);
  const { flags, positionals } = fieldsOf(operation);
  const options = plainOptions(rest.slice(1), optionsByName(operation, flags), positionals);
  if (options === null) return whole(argv);

  const { emit, fail } = answerOn(new FdWriter(1), globals);
  const environment = { cwd: process.cwd(), env: process.env, project: globals.project };
  const answered = async () => {
    const args = operationArgs(flags, positionals, options);
    const agent = agentOf(options.as as string | undefined, globals, environment.env);
    emit(await runInCheckoutOf(GRAPH_READS, environment, { operation: operation.name, args, agent }, readsHostPorts));
    return 0;
  };
  return settle(answered().catch(fail));
}

/** A graph read never reaches the machine; a linked checkout's goes to its server. */
const readsHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: notServed('a graph read'),
  client: clientPortsOf(GRAPH_READS, home, checkouts, env),
});
