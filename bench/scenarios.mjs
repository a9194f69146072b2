// What the bench times, as data. A scenario names the command line to run (built from the
// fixture and, for commands that consume state, from a fresh node of a fixture pool) and its
// setup: `pool` names the pool of prepared nodes the generator lays down for it, one per run
// (ready tasks for `take`, claimed ones for `submit`, submitted ones for `accept`).
// A command missing from the build (exit 2, UNKNOWN_COMMAND) is reported as not available, so
// adding a command to the CLI is enough for the bench to time it.
import { REVIEWER, WORKER } from './generate.mjs';

/** Commands that need no project: start-up cost alone. */
export const STARTUP = [
  { name: '--version', group: 'startup', argv: () => ['--version'] },
  { name: '--help', group: 'startup', argv: () => ['--help'] },
];

export const READS = [
  { name: 'status', group: 'read', argv: () => ['status'] },
  // Issue 28's targets name these: a status that lists at most 20 per group, and a search with one match.
  { name: 'status --limit 20', group: 'read', argv: () => ['status', '--limit', '20'] },
  // `context` and `take` on the bench scope's tasks, whose knowledge is as large at every size (a
  // small answer: issue 28's point commands); the large-answer case apart, on a task whose context
  // grows with the project (bench/generate.mjs, SCOPED_SAMPLE), against the answer's own floor.
  { name: 'context', group: 'read', argv: (fixture) => ['context', fixture.sample.context] },
  { name: 'context (large answer)', group: 'read', largeAnswer: true, argv: (fixture) => ['context', fixture.sample.task] },
  { name: 'show', group: 'read', argv: (fixture) => ['show', fixture.sample.task] },
  { name: 'search', group: 'read', argv: (fixture) => ['search', fixture.sample.query] },
  { name: 'search (one match)', group: 'read', argv: (fixture) => ['search', fixture.sample.knowledge] },
  { name: 'history', group: 'read', argv: (fixture) => ['history', fixture.sample.task] },
  // `state` returns the whole log by contract, so its cost follows history; shown for reference.
  { name: 'state', group: 'read', argv: () => ['state'], reference: true },
];

export const MUTATIONS = [
  { name: 'take', group: 'mutation', pool: 'take', argv: (_fixture, id) => ['take', id, '--as', WORKER] },
  { name: 'take (large answer)', group: 'mutation', pool: 'take-wide', largeAnswer: true, argv: (_fixture, id) => ['take', id, '--as', WORKER] },
  { name: 'submit', group: 'mutation', pool: 'submit', argv: (_fixture, id) => ['submit', id, '--note', 'x', '--as', WORKER] },
  { name: 'accept', group: 'mutation', pool: 'accept', argv: (_fixture, id) => ['accept', id, '--as', REVIEWER] },
  {
    name: 'add-task',
    group: 'mutation',
    argv: (fixture) => ['add-task', '--initiative', fixture.initiative, '--title', 'x', '--body', 'y', '--acceptance', 'z', '--blocked-by', '', '--as', WORKER],
  },
  { name: 'update', group: 'mutation', argv: (fixture) => ['update', fixture.sample.task, '--title', 'x', '--as', WORKER] },
  { name: 'add-note', group: 'mutation', argv: (fixture) => ['add-note', fixture.sample.task, 'x', '--as', WORKER] },
];

/**
 * The other actions on one node, each consuming a node of its own pool (bench/generate.mjs
 * ACTION_POOLS, laid down with `actionPools: true`, which leaves a project without them as before).
 */
export const ACTIONS = [
  { name: 'release', group: 'mutation', pool: 'release', argv: (_fixture, id) => ['release', id, '--as', WORKER] },
  { name: 'reject', group: 'mutation', pool: 'reject', argv: (_fixture, id) => ['reject', id, '--reason', 'x', '--as', REVIEWER] },
  { name: 'reopen', group: 'mutation', pool: 'reopen', argv: (_fixture, id) => ['reopen', id, '--reason', 'x', '--as', WORKER] },
  { name: 'cancel', group: 'mutation', pool: 'cancel', argv: (_fixture, id) => ['cancel', id, '--reason', 'x', '--as', WORKER] },
  { name: 'resolve', group: 'mutation', pool: 'resolve', argv: (_fixture, id) => ['resolve', id, '--choice', 'x', '--rationale', 'y', '--as', WORKER] },
  { name: 'deprecate-knowledge', group: 'mutation', pool: 'deprecate-knowledge', argv: (_fixture, id) => ['deprecate-knowledge', id, '--reason', 'x', '--as', WORKER] },
];

/** Reads whose cost must not follow the history's length: also timed on the short-log twin. */
export const HISTORY_BOUND = READS.filter((scenario) => scenario.name === 'history');

const addTask = MUTATIONS.find((scenario) => scenario.name === 'add-task');

/** A batch of add-task items (the file the fixture names) next to one add-task, in the same rounds. */
export const BATCH = [
  { ...addTask, group: 'batch' },
  { name: 'batch', group: 'batch', argv: (fixture) => ['batch', '--file', fixture.batchFile, '--as', WORKER] },
];

/** The shared workload's taskdag side (Taskwarrior's is in taskwarrior.mjs): list the ready tasks, add one. */
export const SHARED = [...READS, ...MUTATIONS].filter((scenario) => scenario.name === 'status' || scenario.name === 'add-task');
