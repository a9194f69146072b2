/**
 * Rate limit of failed logins, per client address, checked before any password is hashed: at
 * most `limit` failures (attempts in flight count as failures until they succeed) within a
 * sliding window. A success clears the client's record; an attempt that could not be decided (the
 * database holding the verifier is down) counts neither way. The table of clients is bounded; when
 * full, the client seen longest ago is forgotten. Decision and figures: docs/operating.md.
 */
/** How an attempt ended: the password matched, did not, or was never compared (a storage failure). */
export type LoginOutcome = 'succeeded' | 'failed' | 'undecided';

export class LoginThrottle {
  private readonly clients = new Map<string, { failures: number[]; inFlight: number }>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 60_000,
    private readonly maxClients = 10_000,
  ) {}

  /** Starts an attempt: null when allowed, else how long until the client may try again. */
  begin(client: string, now: number): number | null {
    const entry = this.entry(client);
    entry.failures = entry.failures.filter((at) => now - at < this.windowMs);
    if (entry.failures.length + entry.inFlight >= this.limit) {
      const oldest = entry.failures[0] ?? now;
      return Math.max(1, oldest + this.windowMs - now);
    }
    entry.inFlight += 1;
    return null;
  }

  end(client: string, outcome: LoginOutcome, now: number): void {
    const entry = this.entry(client);
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    if (outcome === 'succeeded') entry.failures = [];
    else if (outcome === 'failed') entry.failures.push(now);
    if (entry.failures.length === 0 && entry.inFlight === 0) this.clients.delete(client);
  }

  private entry(client: string) {
    let entry = this.clients.get(client);
    if (entry) {
      // Most recently seen last, so the first key is the one to forget.
      this.clients.delete(client);
    } else {
      entry = { failures: [], inFlight: 0 };
      if (this.clients.size >= this.maxClients) this.clients.delete(this.clients.keys().next().value!);
    }
    this.clients.set(client, entry);
    return entry;
  }
}
