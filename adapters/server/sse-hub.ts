import { DomainError } from '../../domain/errors.js';

/** What a revision notification says (docs/http-api.md): enough to decide whether to refetch. */
export interface RevisionEvent {
  revision: number;
  fence_generation: number;
}

/** Where a subscriber's stream goes: an HTTP response, in practice. */
export interface EventSink {
  /** False when the peer is not reading fast enough: the rest waits for 'drain'. */
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(): void;
}

export interface SseHubOptions {
  /** Streams open at once, over every project; one more is refused. */
  maxSubscribers: number;
  /** Messages held for a subscriber that is not reading; past it, one `refresh` replaces them all. */
  bufferSize: number;
  /** Recent events kept per project, replayed to a client that resumes with Last-Event-ID. */
  historySize: number;
  /** A comment line this often, so proxies and clients see a live connection. */
  keepAliveMs: number;
  /** Told when a project's first stream opens (true) and its last one closes (false): whether other processes' commits of it need to be heard. */
  watched?: (project: string, watched: boolean) => void;
}

export const DEFAULT_SSE_OPTIONS: SseHubOptions = { maxSubscribers: 1024, bufferSize: 64, historySize: 256, keepAliveMs: 15_000 };

const REFRESH = 'event: refresh\ndata: {}\n\n';

function message(event: RevisionEvent): string {
  return `id: ${event.revision}\nevent: revision\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Server-sent events of revision notifications, one hub for every project (as td's sse_hub):
 * each subscriber has a small bounded buffer, and one that falls behind gets a single `refresh`
 * instead of an ever-growing queue; a client resuming with Last-Event-ID gets every event it
 * missed from the recent history, or a `refresh` when the history no longer reaches back; a
 * comment line keeps idle streams alive; closing (the peer's or the server's) removes it.
 */
export class SseHub {
  private readonly projects = new Map<string, { history: RevisionEvent[]; subscribers: Set<Subscriber> }>();
  private subscriberCount = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: SseHubOptions = DEFAULT_SSE_OPTIONS) {
    this.timer = setInterval(() => this.keepAlive(), options.keepAliveMs);
    this.timer.unref();
  }

  get size(): number {
    return this.subscriberCount;
  }

  /** The projects someone is following now. */
  get followed(): string[] {
    return [...this.projects].filter(([, entry]) => entry.subscribers.size > 0).map(([project]) => project);
  }

  /** Announces a committed revision to every subscriber of the project. */
  publish(project: string, event: RevisionEvent): void {
    const entry = this.entry(project);
    const last = entry.history.at(-1);
    // A commit announced twice (by its writer, then by a subscriber's first look) counts once.
    if (last && last.fence_generation === event.fence_generation && last.revision >= event.revision) return;
    entry.history.push(event);
    if (entry.history.length > this.options.historySize) entry.history.shift();
    for (const subscriber of entry.subscribers) subscriber.send(message(event));
  }

  /**
   * Opens a stream on `sink`. `current` is the project's committed revision now; `lastEventId`
   * the last revision the client saw (a reconnect), or null for a new client. Returns the
   * function that closes it (call it when the peer goes away).
   */
  subscribe(project: string, sink: EventSink, current: RevisionEvent, lastEventId: number | null): () => void {
    this.requireRoom();
    const entry = this.entry(project);
    const last = entry.history.at(-1);
    if (!last || last.revision !== current.revision || last.fence_generation !== current.fence_generation) this.publish(project, current);
    const subscriber = new Subscriber(sink, this.options.bufferSize);
    entry.subscribers.add(subscriber);
    this.subscriberCount += 1;
    if (entry.subscribers.size === 1) this.options.watched?.(project, true);
    subscriber.send(': connected\n\n');
    this.replay(entry.history, current, lastEventId, subscriber);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      entry.subscribers.delete(subscriber);
      this.subscriberCount -= 1;
      if (entry.subscribers.size === 0) this.options.watched?.(project, false);
      if (entry.subscribers.size === 0 && entry.history.length === 0) this.projects.delete(project);
    };
  }

  /**
   * Refuses one stream more than the limit. A route calls it before it sends the stream's
   * headers, so the refusal is still a whole JSON answer and not a stream that never starts.
   */
  requireRoom(): void {
    if (this.subscriberCount < this.options.maxSubscribers) return;
    throw new DomainError('INVALID_ARGUMENT', `Too many live streams (${this.options.maxSubscribers}); retry later`, {
      limit: this.options.maxSubscribers,
      retry_after_ms: 5_000,
    });
  }

  /** Ends every stream (server shutdown): clients reconnect to whoever serves next. */
  close(): void {
    clearInterval(this.timer);
    for (const entry of this.projects.values()) {
      for (const subscriber of entry.subscribers) subscriber.end();
      entry.subscribers.clear();
    }
    this.subscriberCount = 0;
  }

  private replay(history: RevisionEvent[], current: RevisionEvent, lastEventId: number | null, subscriber: Subscriber): void {
    if (lastEventId === null) return;
    if (lastEventId === current.revision) return;
    const missed = history.filter((event) => event.revision > lastEventId && event.fence_generation === current.fence_generation);
    const reachesBack = missed.length > 0 && missed[0]!.revision === lastEventId + 1;
    // A client ahead of us (a restored state) or behind our history must reload everything.
    if (lastEventId > current.revision || !reachesBack) subscriber.send(REFRESH);
    else for (const event of missed) subscriber.send(message(event));
  }

  private keepAlive(): void {
    for (const entry of this.projects.values()) for (const subscriber of entry.subscribers) subscriber.send(': keep-alive\n\n');
  }

  private entry(project: string) {
    let entry = this.projects.get(project);
    if (!entry) {
      entry = { history: [], subscribers: new Set() };
      this.projects.set(project, entry);
    }
    return entry;
  }
}

/** One stream: writes go straight out while the peer reads; otherwise into a bounded buffer. */
class Subscriber {
  private queue: string[] = [];
  private waiting = false;
  private overflowed = false;

  constructor(
    private readonly sink: EventSink,
    private readonly bufferSize: number,
  ) {}

  send(chunk: string): void {
    if (!this.waiting) {
      this.waiting = !this.sink.write(chunk);
      if (this.waiting) this.sink.once('drain', () => this.drain());
      return;
    }
    if (this.overflowed) return;
    if (this.queue.length < this.bufferSize) {
      this.queue.push(chunk);
      return;
    }
    // Fallen behind: what it missed no longer matters, only that it must reload.
    this.overflowed = true;
    this.queue = [REFRESH];
  }

  end(): void {
    this.sink.end();
  }

  private drain(): void {
    this.waiting = false;
    const pending = this.queue;
    this.queue = [];
    this.overflowed = false;
    for (const chunk of pending) this.send(chunk);
  }
}
