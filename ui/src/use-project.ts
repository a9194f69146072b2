import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, earlySnapshot, snapshot as fetchSnapshot } from './api';
import { EdgeIndex } from './board-model';
import { followFrom, type LiveState } from './live';
import type { Snapshot } from './types';

export interface ProjectData {
  snapshot: Snapshot | null;
  edges: EdgeIndex | null;
  error: ApiError | null;
  live: LiveState;
}

/**
 * A project's snapshot, kept current: fetched once (or taken from the page's early request), then revalidated with its ETag whenever the
 * live stream says something changed (one request at a time; a change during one queues another).
 */
export function useProject(project: string): ProjectData {
  const [data, setData] = useState<ProjectData>({ snapshot: null, edges: null, error: null, live: 'connecting' });
  const etag = useRef<string | null>(null);

  useEffect(() => {
    etag.current = null;
    setData({ snapshot: null, edges: null, error: null, live: 'connecting' });
    let running = false;
    let again = false;
    let stopped = false;
    const revalidate = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          try {
            const fresh = (etag.current === null ? await earlySnapshot(project) : null) ?? (await fetchSnapshot(project, etag.current));
            if (stopped) return;
            if (fresh) {
              etag.current = fresh.etag;
              setData((current) => ({ ...current, snapshot: fresh.snapshot, edges: new EdgeIndex(fresh.snapshot.edges), error: null }));
            }
          } catch (error) {
            if (!stopped) setData((current) => ({ ...current, error: error as ApiError }));
          }
        } while (again && !stopped);
      } finally {
        running = false;
      }
    };
    void revalidate();
    const unfollow = followFrom(project, {
      changed: () => void revalidate(),
      state: (live) => setData((current) => ({ ...current, live })),
      refused: (error) => setData((current) => ({ ...current, error })),
    });
    return () => {
      stopped = true;
      unfollow();
    };
  }, [project]);

  return data;
}
