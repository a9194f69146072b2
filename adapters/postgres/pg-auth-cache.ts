/** The channel a trigger notifies whenever sessions or credentials are changed or removed (schema 6), by any writer. */
export const AUTH_CHANNEL = 'taskdag_auth_changes';

/**
 * How long a session or credential found in the database is trusted without asking again, while
 * the process listens and no notification says otherwise. It is not what ends a bearer: a
 * rotation or a removal does, on every process, by the trigger's notification (milliseconds);
 * a listening connection that is lost is known at once when its backend is ended or the
 * database restarts, within about 15 s when it is cut without a word (TCP keepalive,
 * DEDICATED_KEEPALIVE_IDLE_MS in pg-pool.ts), and from then until it is back nothing is trusted.
 * This bounds only a change that fires no trigger (SQL run with session_replication_role =
 * replica, or with the trigger disabled), at one statement per process this often while it
 * serves bearers and none while it serves none: at a second it was a statement a second on every
 * process, what made the round trips a commit grow with their number at a fixed load (issue 25
 * item 4, BENCHMARKS.md).
 */
export const AUTH_TRUST_MS = 30_000;

/** What the revision listener tells the cache (pg-revision-listener.ts). */
export interface AuthChangeSink {
  /** Whether notifications arrive now: while they may be missed (no listener, or its connection lost), nothing is trusted. */
  listening(on: boolean): void;
  /** Sessions or credentials changed somewhere: everything found so far is asked again. */
  changed(): void;
}

/**
 * Looks up, in one statement, every key given: what it finds by key; a key with nothing found
 * (its session or credential gone) is absent from the answer.
 */
export type AuthRecheck = (keys: string[]) => Promise<Map<string, unknown>>;

/** A recheck under way or done: the keys it looks up, and the changes heard when it began. */
interface Rechecking {
  done: Promise<void>;
  changes: number;
  keys: Set<string>;
}

interface Kept {
  value: unknown;
  /** When the statement that found it was sent (performance.now). */
  at: number;
  /** Asked for since it was last found: only such entries are looked up again when their time is over. */
  used: boolean;
}

/**
 * What a bearer check found in the database (a session by its hash, a credential by its id),
 * kept so that the next checks of the same bearer need no round trip: every request is one, and
 * a session lookup per request was most of what a PostgreSQL server sent (BENCHMARKS.md). Only
 * what was found is kept (a bearer logged in on another process is found at its first check), and
 * only while the process listens: a change by any process reaches every process's cache by
 * notification, and an entry is asked again after AUTH_TRUST_MS even so (a change that fires no
 * trigger). A lookup that was under way when a change was heard keeps nothing: it may have read
 * the rows from before the change.
 *
 * With a recheck (`recheckWith`), the entries whose time is over are asked again all together,
 * in one statement, when the first of them is next asked for: a process serving many bearers
 * sends one statement a trusted time for all of them, not one each (issue 25 item 4). Each entry
 * is still trusted at most AUTH_TRUST_MS after a statement read its row. Entries not asked for
 * since they were last found are dropped then, not looked up.
 */
export class PgAuthCache implements AuthChangeSink {
  private readonly found = new Map<string, Kept>();
  /** Lookups under way, by key, with the changes heard when each began: the checks of one bearer that arrive together share one. */
  private readonly asking = new Map<string, { value: Promise<unknown>; changes: number }>();
  /** The recheck under way: the checks whose entries' time is over meanwhile wait for it. */
  private rechecking: Rechecking | null = null;
  private recheck: AuthRecheck | null = null;
  /** Bumped by every change heard: a lookup begun before the latest one keeps nothing. */
  private changes = 0;
  private trusted = false;

  constructor(
    private readonly trustMs = AUTH_TRUST_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How the entries whose trusted time is over are looked up again, together (pg-auth-store.ts). */
  recheckWith(recheck: AuthRecheck): void {
    this.recheck = recheck;
  }

  /** `key`'s value as found within the trusted time, or as `lookup` (or a recheck of every entry used) finds it now (kept if found). */
  async get<T>(key: string, lookup: () => Promise<T | null>): Promise<T | null> {
    const kept = this.trusted ? this.found.get(key) : undefined;
    if (kept && this.now() - kept.at < this.trustMs) {
      kept.used = true;
      return kept.value as T;
    }
    if (kept && this.recheck) {
      kept.used = true;
      const recheck = await this.recheckAll();
      // Nothing heard since the recheck began: what it found stands, and a key it looked up and did not find is gone.
      if (recheck.changes === this.changes && recheck.keys.has(key)) return (this.found.get(key)?.value as T | undefined) ?? null;
    }
    return this.lookUp(key, lookup);
  }

  listening(on: boolean): void {
    this.trusted = on;
    this.changed();
  }

  changed(): void {
    this.changes += 1;
    this.found.clear();
  }

  private async lookUp<T>(key: string, lookup: () => Promise<T | null>): Promise<T | null> {
    const shared = this.trusted ? this.asking.get(key) : undefined;
    if (shared && shared.changes === this.changes) return shared.value as Promise<T | null>;
    const changes = this.changes;
    const at = this.now();
    const value = lookup();
    const asking = { value, changes };
    this.asking.set(key, asking);
    try {
      const found = await value;
      if (found === null) this.found.delete(key);
      else if (this.trusted && changes === this.changes) this.found.set(key, { value: found, at, used: false });
      return found;
    } finally {
      if (this.asking.get(key) === asking) this.asking.delete(key);
    }
  }

  /**
   * Looks up again, in one statement, every entry asked for since it was found, and drops the
   * others; answers the keys it looked up and the changes heard when it began (what it found is
   * kept only if none since). Checks that arrive while it is under way share it.
   */
  private async recheckAll(): Promise<Rechecking> {
    const under = this.rechecking;
    if (under?.changes === this.changes) {
      await under.done;
      return under;
    }
    const changes = this.changes;
    const at = this.now();
    const ending = [...this.found].filter(([, kept]) => at - kept.at >= this.trustMs || kept.used);
    const keys = new Set(ending.filter(([, kept]) => kept.used).map(([key]) => key));
    const done = this.recheck!([...keys]).then((values) => {
      if (changes !== this.changes) return;
      // Entries found by a lookup of their own meanwhile stay as they are.
      for (const [key, kept] of ending) if (this.found.get(key) === kept) this.found.delete(key);
      for (const [key, value] of values) if (keys.has(key)) this.found.set(key, { value, at, used: false });
    });
    const rechecking = { done, changes, keys };
    this.rechecking = rechecking;
    try {
      await done;
    } finally {
      if (this.rechecking === rechecking) this.rechecking = null;
    }
    return rechecking;
  }
}
