/** An ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T04:56:39.123Z`. */
export type Timestamp = string;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isTimestamp(value: unknown): value is Timestamp {
  return typeof value === 'string' && TIMESTAMP.test(value);
}

/** Milliseconds between two timestamps (`later - earlier`). */
export function millisBetween(earlier: Timestamp, later: Timestamp): number {
  return Date.parse(later) - Date.parse(earlier);
}

/**
 * The timestamp `millis` before `timestamp`, in the same format, so that "at or before it" is a
 * string comparison; '' (before every timestamp) when that lies before the representable range.
 */
export function timestampBefore(timestamp: Timestamp, millis: number): Timestamp {
  const at = Date.parse(timestamp) - millis;
  return at < -8.64e15 ? '' : new Date(at).toISOString();
}

/** The timestamp `millis` after `timestamp`, in the same format. */
export function timestampAfter(timestamp: Timestamp, millis: number): Timestamp {
  return new Date(Date.parse(timestamp) + millis).toISOString();
}
