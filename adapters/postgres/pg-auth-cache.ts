/** The channel a trigger notifies whenever sessions or credentials are changed or removed (schema 6), by any writer. */
export const AUTH_CHANNEL = 'taskdag_auth_changes';

/** How long a session or credential found in the database is trusted without asking again, when no notification says otherwise. */
export const AUTH_TRUST_MS = 1_000;

/** What the revision listener tells the cache (pg-revision-listener.ts). */
export interface AuthChangeSink {
  /** Whether notifications arrive now: while they may be missed (no listener, or its connection lost), nothing is trusted. */
  listening(on: boolean): void;
  /** Sessions or credentials changed somewhere: everything found so far is asked again. */
  changed(): void;
}

/**
 * What a bearer check found in the database (a session by its hash, a credential by its id),
 * kept so that the next checks of the same bearer need no round trip: every request is one, and
 * a session lookup per request was most of what a PostgreSQL server sent (BENCHMARKS.md). Only
 * what was found is kept (a bearer logged in on another process is found at its first check), and
 * only while the process listens: a change by any process reaches every process's cache by
 * notification, and an entry is asked again after AUTH_TRUST_MS even if a notification was lost
 * on a connection not yet known to be broken. A lookup that was under way when a change was
 * heard keeps nothing: it may have read the rows from before the change.
 */
export class PgAuthCache implements AuthChangeSink {
  private readonly found = new Map<string, { value: unknown; at: number }>();
  /** Lookups under way, by key, with the changes heard when each began: the checks of one bearer that arrive together share one. */
  private readonly asking = new Map<string, { value: Promise<unknown>; changes: number }>();
  /** Bumped by every change heard: a lookup begun before the latest one keeps nothing. */
  private changes = 0;
  private trusted = false;

  constructor(
    private readonly trustMs = AUTH_TRUST_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `key`'s value as found within the trusted time, or as `lookup` finds it now (kept if found). */
  async get<T>(key: string, lookup: () => Promise<T | null>): Promise<T | null> {
    const kept = this.trusted ? this.found.get(key) : undefined;
    if (kept && this.now() - kept.at < this.trustMs) return kept.value as T;
    const shared = this.trusted ? this.asking.get(key) : undefined;
    if (shared && shared.changes === this.changes) return shared.value as Promise<T | null>;
    const changes = this.changes;
    const value = lookup();
    const asking = { value, changes };
    this.asking.set(key, asking);
    try {
      const found = await value;
      if (found === null) this.found.delete(key);
      else if (this.trusted && changes === this.changes) this.found.set(key, { value: found, at: this.now() });
      return found;
    } finally {
      if (this.asking.get(key) === asking) this.asking.delete(key);
    }
  }

  listening(on: boolean): void {
    this.trusted = on;
    this.changed();
  }

  changed(): void {
    this.changes += 1;
    this.found.clear();
  }
}
