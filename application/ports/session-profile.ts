/** What the session profile keeps for one origin: the bearer and what the server said of it, never the password. */
export interface StoredSession {
  bearer: string;
  expires_at: string | null;
  stored_at: string;
}

/**
 * The local session profile (spec 2.6): bearers indexed by origin, private to the user. Every
 * write is atomic and keeps the other origins' entries.
 */
export interface SessionProfile {
  /** Where it lives, for messages and results. */
  readonly location: string;
  get(origin: string): Promise<StoredSession | null>;
  put(origin: string, session: StoredSession): Promise<void>;
  /** Whether there was an entry to remove. */
  remove(origin: string): Promise<boolean>;
}
