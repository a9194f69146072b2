import { useEffect, useState } from 'preact/hooks';
import { activity, ApiError } from '../api';
import { nodeHref } from '../routes';
import type { LogEntry } from '../types';
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

/** The project's log, newest first, a page at a time; "N of M" says how much is shown. */
export function ActivityView({ project, revision }: { project: string; revision: number }) {
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<number | null>(null);
  const [pages, setPages] = useState(1);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    activity(project, null, PAGE * pages).then(
      (page) => {
        if (stopped) return;
        setEntries(page.entries);
        setTotal(page.total);
        setNext(page.next_before);
        setError(null);
      },
      (failure: ApiError) => !stopped && setError(failure),
    );
    return () => {
      stopped = true;
    };
  }, [project, revision, pages]);
  if (error) return <ErrorBox error={error} />;
  return (
    <section class="activity">
      <h2>
        Activity <span class="count">{entries.length === total ? `${total} entries` : `${entries.length} of ${total}`}</span>
      </h2>
      <ol class="feed">
        {entries.map((entry) => (
          <EntryLine project={project} entry={entry} />
        ))}
      </ol>
      {next !== null && PAGE * pages < 500 ? (
        <button type="button" onClick={() => setPages(pages + 1)}>
          Show {PAGE} older
        </button>
      ) : null}
    </section>
  );
}
