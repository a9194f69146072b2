import type { LogEntry, NodeId } from './model.js';

/** Entries `history` lists unless `--limit` says otherwise (the most recent ones). */
export const DEFAULT_HISTORY_LIMIT = 100;

/** Characters that can be part of a node id; anything else separates tokens in a note. */
const NOT_ID_CHARACTER = /[^A-Za-z0-9._:-]+/;

/**
 * The log entries about `id` (spec 4.4): those whose `node` is `id`, and those whose note names
 * it as a whole token. In log order, keeping the `limit` most recent.
 */
export function historyOf(log: readonly LogEntry[], id: NodeId, limit: number): { id: NodeId; entries: LogEntry[] } {
  const entries = log.filter((entry) => entry.node === id || (typeof entry.note === 'string' && mentions(entry.note, id)));
  return { id, entries: entries.slice(Math.max(0, entries.length - limit)) };
}

/**
 * Whether `text` names `id` as a whole token: `T-1` is named in "see T-1." and "(T-1)", not in
 * "T-10" or "XT-1". A token's trailing `.` or `:` is sentence punctuation, not part of the id.
 */
export function mentions(text: string, id: NodeId): boolean {
  return text.split(NOT_ID_CHARACTER).some((token) => token === id || token.replace(/[.:]+$/, '') === id);
}
