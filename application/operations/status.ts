import { DEFAULT_STALE_MS } from '../../domain/alerts.js';
import { DEFAULT_STATUS_LIMIT, statusReport } from '../../domain/status-report.js';
import { flag, nonEmptyText, nonNegativeInteger, oneOf, optional, positiveInteger } from '../args.js';
import { graphOperation } from '../define.js';

export const status = graphOperation({
  name: 'status',
  mutates: false,
  args: {
    initiative: optional(nonEmptyText()),
    kind: optional(oneOf(['task', 'gate', 'knowledge'] as const)),
    status: optional(nonEmptyText()),
    domain: optional(nonEmptyText()),
    claimed_by: optional(nonEmptyText()),
    stale_ms: optional(nonNegativeInteger()),
    limit: optional(positiveInteger()),
    all: optional(flag()),
  },
  run: ({ draft }, { stale_ms, limit, all, ...filters }) =>
    statusReport(draft, draft.now, { ...filters, staleMs: stale_ms ?? DEFAULT_STALE_MS, limit: limit ?? DEFAULT_STATUS_LIMIT, all: all ?? false }),
});
