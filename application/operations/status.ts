import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { DEFAULT_STATUS_LIMIT, statusAnswer, statusReport, type StatusReport } from '../../domain/status-report.js';
import { flag, nonEmptyText, nonNegativeInteger, oneOf, optional, positiveInteger } from '../args.js';
import { nodeSummarySchema, staleClaimAlertSchema } from '../contract/results.js';
import { array, integer, object, optional as optionalProperty, record } from '../contract/schema.js';
import { graphOperation } from '../define.js';

const groups = (description: string) => record(array(nodeSummarySchema()), description);

export const status = graphOperation({
  name: 'status',
  summary: 'The project at a glance: summary counts, tasks and gates by status, stale-claim alerts',
  details:
    "Filters narrow every group; `in_progress` lists everyone's work unless `--claimed-by` narrows it. `--stale-ms` (default 7200000, two hours) sets when a claim is stale; `--limit` (default 100) caps each list; `summary` counts before the cap.",
  examples: [
    ['Everything open in one initiative', '$0 status --initiative billing'],
    ['My claims, stale after ten minutes', '$0 status --claimed-by alice --stale-ms 600000'],
    ['Every group, done and canceled included', '$0 status --all --limit 20'],
    ['Ready work in the order next takes it', '$0 status --ranked'],
  ],
  mutates: false,
  usesAgent: true,
  args: () => ({
    initiative: optional(nonEmptyText(), 'Only this initiative'),
    kind: optional(oneOf(['task', 'gate', 'knowledge'] as const), 'task, gate or knowledge'),
    status: optional(nonEmptyText(), 'A (derived) status, e.g. ready'),
    domain: optional(nonEmptyText(), 'Only this domain'),
    claimed_by: optional(nonEmptyText(), "Only this agent's claims (in_progress and stale alerts)"),
    stale_ms: optional(nonNegativeInteger(), 'Claim age that counts as stale, in ms (default two hours)'),
    limit: optional(positiveInteger(), 'Entries per list (default 100)'),
    all: optional(flag(), 'Add done, canceled, resolved, superseded and deprecated groups', { standalone: true }),
    ranked: optional(flag(), 'List ready tasks in the order next takes them, each with its ranking', { standalone: true }),
  }),
  result: () => object({
    summary: object({
      ready: integer(),
      in_progress: integer(),
      blocked: integer(),
      backlog: integer(),
      submitted: integer(),
      open_gates: integer(),
      active_knowledge: integer(),
    }),
    tasks: groups('Tasks by derived status'),
    gates: groups('Gates by status'),
    knowledge_count: optionalProperty(integer('Active knowledge matching the filters (without --all)')),
    knowledge: optionalProperty(groups('Knowledge by status (with --all)')),
    alerts: array(staleClaimAlertSchema()),
  }),
  // A caller that prints the answer at once (the command line, which treats answers as unknown
  // values) gets it as JSON text, its alerts written from the saved claims: the same bytes. Every
  // typed caller (the library, MCP, the server) gets the report, as the result type says.
  run: ({ draft, printed }, { stale_ms, limit, all, ranked, ...filters }): StatusReport =>
    (printed ? statusAnswer : statusReport)(draft, draft.now, { ...filters, staleMs: stale_ms ?? DEFAULT_STALE_MS, limit: limit ?? DEFAULT_STATUS_LIMIT, all: all ?? false, ranked: ranked ?? false }) as StatusReport,
});
