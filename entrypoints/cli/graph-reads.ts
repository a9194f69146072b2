import type { Operation } from '../../application/operation.js';
import { history } from '../../application/operations/history.js';
import { initiatives } from '../../application/operations/initiatives.js';
import { search } from '../../application/operations/search.js';
import { show } from '../../application/operations/show.js';
import { state } from '../../application/operations/state.js';
import { status } from '../../application/operations/status.js';
import { notServed, type HostPortsFor } from '../compose.js';
import { clientPortsOf } from '../host/client-ports.js';
import { runPlainWords } from './plain-words-program.js';

/**
 * The operations this program serves: those that read a project's graph and whose answer needs
 * no other operation. `context` is not one: with policy plugins, its `allowed_actions` run each
 * action as a preview (application/policy.ts), so it is the point commands' program's
 * (entrypoints/cli/point-commands.ts).
 */
export const GRAPH_READS: readonly Operation[] = [show, state, status, search, history, initiatives];

/**
 * The command line of a graph read written in plain words (`show T-1`, `status --limit 20`),
 * which is most of what agents run, as a program of its own (dist/taskdag-reads.js): it holds
 * those operations, the store and the answer, and none of the rest of the command line
 * (clipanion's parser, the help, every other operation), so it loads in about half the time of
 * the whole program (BENCHMARKS.md). Any other line goes to `whole` (runPlainWords).
 */
export function run(argv: string[], whole: (argv: string[]) => Promise<void>): Promise<void> {
  return runPlainWords(GRAPH_READS, GRAPH_READS, argv, whole, readsHostPorts);
}

/** A graph read never reaches the machine; a linked checkout's goes to its server. */
const readsHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: notServed('a graph read'),
  client: clientPortsOf(GRAPH_READS, home, checkouts, env),
});
