import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { nodeContext } from '../../domain/context.js';
import { leaseMillis } from '../../domain/fencing.js';
import { hasReadyMatch, nextTask, rankReadyTasks } from '../../domain/next-task.js';
import { integerIn, nonEmptyText, optional, textList } from '../args.js';
import { contextSchema, taskSchema } from '../contract/results.js';
import { boolean, integer, nullable, object, string, lazily } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { withPluginsAllowed } from '../policy.js';
import { leaseArg } from './lease-args.js';

/** The longest `--wait`: ten minutes, within what an HTTP client and a server hold a request open for. */
const MAX_WAIT_SECONDS = 600;

const reasonSchema = lazily(() => object({
  rule: string('The ranking rule'),
  priority: integer('The task\'s priority, 0 (most urgent) to 4'),
  priority_set: boolean('false: the task has none of its own and ranks at the default, 2'),
  critical_path: integer('Unfinished tasks on the longest chain of dependents that starts at it, itself included'),
  created_at: string(),
  rank: integer('Its place among every ready task (1: the best); those before it were left out by the filters'),
  ready: integer('Ready tasks in the project when it was chosen'),
  message: string(),
}));

/**
 * Claims the best ready task for the caller in one call (docs/agents.md, "The best next task").
 * Ranking and claim happen in one transaction, so agents calling it at once get different tasks.
 */
export const next = graphOperation({
  name: 'next',
  summary: 'Claim the best ready task (priority, then the work waiting behind it, then age) and say why',
  details:
    'Ranked by priority (0 first; a task without one ranks at 2), then by its critical path (the most unfinished tasks on any chain waiting on it), then oldest first. `--initiative`, `--domain` and `--tags` (every tag given) narrow the choice. Answers `node: null` when no ready task matches. `--wait <seconds>` waits that long for one to become ready (another agent\'s accept, say) and claims it as soon as it does; `node: null` if none did. `take <id>` still claims a task you chose yourself.',
  examples: [
    ['Claim the best ready task', '$0 next --as bob'],
    ['The best in one initiative, under a 15-minute lease', '$0 next --initiative billing --lease 15m --as bob'],
    ['Wait up to 5 seconds for a task to become ready, and claim it', '$0 next --wait 5 --as bob'],
  ],
  mutates: true,
  args: () => ({
    initiative: optional(nonEmptyText(), 'Only tasks of this initiative'),
    domain: optional(nonEmptyText(), 'Only tasks of this domain'),
    tags: optional(textList(), 'Only tasks carrying every one of these tags'),
    lease: leaseArg(),
    wait: optional(integerIn(0, MAX_WAIT_SECONDS), 'Seconds to wait for a matching task to become ready when none is, 0 to 600 (node: null if none did)'),
  }),
  result: () => object({
    node: nullable(taskSchema()),
    context: nullable(contextSchema()),
    why: nullable(reasonSchema()),
  }),
  run: ({ draft }, { lease, wait: _wait, ...filters }) => nextTask(draft, filters, lease === undefined ? undefined : leaseMillis(lease)),
  prepare: (graph) => rankReadyTasks(graph),
  finish: (context, chosen) =>
    chosen === null
      ? { node: null, context: null, why: null }
      : {
          node: chosen.node,
          context: withPluginsAllowed(context, nodeContext(context.draft, chosen.node, context.draft.now, { agent: context.draft.agent, staleMs: DEFAULT_STALE_MS })),
          why: chosen.why,
        },
  waiting: {
    ms: ({ wait }) => (wait ?? 0) * 1000,
    line: ({ initiative, domain, tags }) => JSON.stringify([initiative ?? null, domain ?? null, [...new Set(tags ?? [])].sort()]),
    found: (answer) => answer.node !== null,
    worthTrying: ({ draft }, { lease: _lease, wait: _wait, ...filters }) => hasReadyMatch(draft, filters),
  },
});
