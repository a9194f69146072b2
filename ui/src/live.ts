import { errorOf, eventsUrl, headers, type ApiError } from './api';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface LiveHandlers {
  /** Something changed (a revision, a `refresh`), or the stream (re)opened: revalidate the snapshot. */
  changed(): void;
  state(state: LiveState): void;
  /** The server refused the stream for good (a bearer no longer valid, a project that went away). */
  refused(error: ApiError): void;
}

const RETRY_MS = [250, 500, 1000, 2000, 5000];

/**
 * Follows a project's `ui/events` (server-sent events) with fetch and a stream reader: EventSource
 * cannot send the protocol header or a bearer. Resumes with Last-Event-ID; after a dropped
 * connection (a server restart) it retries with a growing pause and revalidates on reconnect.
 * Returns the function that stops following.
 */
export function follow(project: string, handlers: LiveHandlers): () => void {
  const abort = new AbortController();
  let lastId: string | null = null;
  let attempt = 0;

  const connect = async (): Promise<void> => {
    handlers.state(attempt === 0 ? 'connecting' : 'reconnecting');
    const response = await fetch(eventsUrl(project), {
      cache: 'no-store',
      signal: abort.signal,
      headers: headers(lastId === null ? {} : { 'Last-Event-ID': lastId }),
    });
    if (response.status === 401 || response.status === 404) {
      handlers.refused(await errorOf(response));
      return;
    }
    if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
    attempt = 0;
    handlers.state('live');
    handlers.changed();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = parseFrame(frame);
        if (fields.id !== undefined) lastId = fields.id;
        if (fields.event === 'revision' || fields.event === 'refresh') handlers.changed();
      }
    }
    throw new Error('the stream ended');
  };

  const loop = async () => {
    while (!abort.signal.aborted) {
      try {
        await connect();
        return;
      } catch {
        if (abort.signal.aborted) return;
        handlers.state('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        attempt += 1;
      }
    }
  };
  void loop();
  return () => abort.abort();
}

/** A stream opened as the page loads, before the view that shows it: what it said is held for the view. */
let early: { project: string; adopt(handlers: LiveHandlers): (() => void) | null } | null = null;

/** How long a stream opened early waits for its view (the login gate may stand in front of it). */
const EARLY_WAIT_MS = 10_000;

/**
 * Opens `project`'s live stream now, beside the login probe and the early snapshot, so the
 * board is live as soon as it is drawn rather than one more round trip later. What it says
 * before the view takes it over (followFrom) is held; a refused one (a login is needed) is
 * left for the view to open again, and one no view takes within EARLY_WAIT_MS is closed.
 */
export function followEarly(project: string): void {
  let state: LiveState = 'connecting';
  let changed = false;
  let refused = false;
  let view: LiveHandlers | null = null;
  const stop = follow(project, {
    changed: () => (view ? view.changed() : (changed = true)),
    state: (next) => (view ? view.state(next) : (state = next)),
    refused: (error) => (view ? view.refused(error) : (refused = true)),
  });
  const unclaimed = setTimeout(() => {
    if (early?.project === project) early = null;
    stop();
  }, EARLY_WAIT_MS);
  early = {
    project,
    adopt(handlers) {
      clearTimeout(unclaimed);
      if (refused) return null;
      view = handlers;
      handlers.state(state);
      if (changed) handlers.changed();
      return stop;
    },
  };
}

/** Follows `project`: the stream opened early when there is one for it, else a new one. */
export function followFrom(project: string, handlers: LiveHandlers): () => void {
  const taken = early?.project === project ? early : null;
  early = null;
  return taken?.adopt(handlers) ?? follow(project, handlers);
}

function parseFrame(frame: string): { id?: string; event?: string } {
  const fields: { id?: string; event?: string } = {};
  for (const line of frame.split('\n')) {
    if (line.startsWith('id:')) fields.id = line.slice(3).trim();
    else if (line.startsWith('event:')) fields.event = line.slice(6).trim();
  }
  return fields;
}
