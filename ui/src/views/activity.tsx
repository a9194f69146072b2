import { useEffect, useState } from 'preact/hooks';
import { activity, ApiError } from '../api';
import { nodeHref } from '../routes';
import type { ActivityPage, LogEntry } from '../types';
import { ErrorBox } from './common';

const PAGE = 50;

export function EntryLine({ project, entry }: { project: string; entry: LogEntry }) {
  return (
    <li class="entry" data-revision={entry.revision}>
      <time title={entry.at}>{entry.at.replace('T', ' ').slice(0, 19)}</time> <span class="rev">r{entry.revision}</span> <strong>{entry.by}</strong>{' '}
      <span class="op">{entry.op}</span> {entry.node ? <a href={nodeHref(project, entry.node)}>{entry.node}</a> : null}
      {entry.reason ? <span class="reason"> — {entry.reason}</span> : null}
      {entry.note ? <span class="note"> — {entry.note}</span> : null}
    </li>
  );
}

/**
 * The project's log, newest first: the newest page follows the live revision; older pages are
 * fetched on demand with the `before` cursor, as far back as the log goes (a new revision starts
 * again from the newest page). "N of M" says how much is shown.
 */
export function ActivityView({ project, revision }: { project: string; revision: number }) {
  const [newest, setNewest] = useState<ActivityPage | null>(null);
  const [older, setOlder] = useState<LogEntry[]>([]);
  const [cursor, setCursor] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    activity(project, null, PAGE).then(
      (page) => {
        if (stopped) return;
        // A new revision starts the feed afresh: older pages kept across it could leave a gap.
        setNewest(page);
        setOlder([]);
        setCursor(null);
        setError(null);
      },
      (failure: ApiError) => !stopped && setError(failure),
    );
    return () => {
      stopped = true;
    };
  }, [project, revision]);
  if (error) return <ErrorBox error={error} />;
  if (!newest) return <p class="loading">Loading the activity…</p>;
  const entries = mergeNewestFirst(newest.entries, older);
  const next = older.length === 0 ? newest.next_before : cursor;
  const loadOlder = () =>
    activity(project, next, PAGE).then(
      (page) => {
        setOlder((kept) => [...kept, ...page.entries]);
        setCursor(page.next_before);
      },
      (failure: ApiError) => setError(failure),
    );
  return (
    <section class="activity">
      <h2>
        Activity <span class="count">{entries.length === newest.total ? `${newest.total} entries` : `${entries.length} of ${newest.total}`}</span>
      </h2>
      <ol class="feed">
        {entries.map((entry) => (
          <EntryLine project={project} entry={entry} />
        ))}
      </ol>
      {next !== null ? (
        <button type="button" onClick={loadOlder}>
          Show {PAGE} older
        </button>
      ) : null}
    </section>
  );
}

/** The newest page and the older pages as one list, newest first, each revision once. */
function mergeNewestFirst(newest: LogEntry[], older: LogEntry[]): LogEntry[] {
  const oldestShown = newest.at(-1)?.revision ?? Number.POSITIVE_INFINITY;
  return [...newest, ...older.filter((entry) => entry.revision < oldestShown)];
}
