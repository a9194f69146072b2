import { DomainError } from '../../domain/errors.js';
import type { LogEntry } from '../../domain/model.js';
import { logEntrySchema } from '../contract/results.js';
import { array, integer, nullable, object, type Static } from '../contract/schema.js';

export const DEFAULT_ACTIVITY = 50;
export const MAX_ACTIVITY = 500;

export const activitySchema = object({
  entries: array(logEntrySchema(), 'Newest first'),
  total: integer('Entries in the whole log'),
  next_before: nullable(integer('Pass as `before` for the page after this one; null on the last page')),
});
export type Activity = Static<typeof activitySchema>;

/**
 * The project's feed: log entries newest first, a page at a time. `before` (a revision) pages
 * back; `limit` is at most MAX_ACTIVITY, exceeded only to keep the entries of the page's oldest
 * revision together. A page never hides that it is cut: `total` and `next_before` say what else
 * there is.
 */
export function activity(log: readonly LogEntry[], options: { limit?: number; before?: number }): Activity {
  const limit = options.limit ?? DEFAULT_ACTIVITY;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ACTIVITY) {
    throw new DomainError('INVALID_ARGUMENT', `limit takes a whole number from 1 to ${MAX_ACTIVITY}`, { field: 'limit', value: options.limit });
  }
  if (options.before !== undefined && (!Number.isInteger(options.before) || options.before < 1)) {
    throw new DomainError('INVALID_ARGUMENT', 'before takes a revision (a whole number of at least 1)', { field: 'before', value: options.before });
  }
  let end = log.length;
  if (options.before !== undefined) while (end > 0 && log[end - 1]!.revision >= options.before) end -= 1;
  let start = Math.max(0, end - limit);
  // A page ends on a whole revision: one transaction (a batch) may have written many entries, and
  // the next page starts below this revision, so none of them may be left out.
  while (start > 0 && log[start - 1]!.revision === log[start]!.revision) start -= 1;
  const entries = log.slice(start, end).reverse();
  return { entries, total: log.length, next_before: start > 0 ? log[start]!.revision : null };
}
