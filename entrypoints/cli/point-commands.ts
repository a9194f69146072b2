import type { Operation } from '../../application/operation.js';
import { accept } from '../../application/operations/accept.js';
import { addNote } from '../../application/operations/add-note.js';
import { addTask } from '../../application/operations/add-task.js';
import { cancel } from '../../application/operations/cancel.js';
import { context } from '../../application/operations/context.js';
import { deprecateKnowledge } from '../../application/operations/deprecate-knowledge.js';
import { reject } from '../../application/operations/reject.js';
import { release } from '../../application/operations/release.js';
import { reopen } from '../../application/operations/reopen.js';
import { resolve } from '../../application/operations/resolve.js';
import { submit } from '../../application/operations/submit.js';
import { take } from '../../application/operations/take.js';
import { update } from '../../application/operations/update.js';
import { notServed, type HostPortsFor } from '../compose.js';
import { clientPortsOf } from '../host/client-ports.js';
import { runPlainWords } from './plain-words-program.js';

/**
 * Every action an agent takes on one node (domain/permissions.ts ACTIONS), in that order. They
 * are also this program's registry: with policy plugins, `take`'s and `context`'s
 * `allowed_actions` run each of them as a preview (application/policy.ts).
 */
const ACTION_OPERATIONS: readonly Operation[] = [take, release, submit, accept, reject, resolve, reopen, cancel, deprecateKnowledge, addNote, update];

/** The commands this program serves: the actions on one node, `add-task`, and `context`. */
export const POINT_COMMANDS: readonly Operation[] = [...ACTION_OPERATIONS, addTask, context];

/**
 * The point commands written in plain words (`update T-1 --title x`, `take T-1 --as a`,
 * `context T-1`), what an agent runs between two reads, as a program of their own
 * (dist/taskdag-point.js): those operations, the store with its commit, and the answer, none of
 * clipanion, the help or the other operations, so a mutation loads about half of what the whole
 * program holds (BENCHMARKS.md). Any other line goes to `whole` (runPlainWords).
 */
export function run(argv: string[], whole: (argv: string[]) => Promise<void>): Promise<void> {
  return runPlainWords(POINT_COMMANDS, POINT_COMMANDS, argv, whole, pointHostPorts);
}

/** A point command never reaches the machine; a linked checkout's goes to its server. */
const pointHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: notServed('a point command'),
  client: clientPortsOf(POINT_COMMANDS, home, checkouts, env),
});
