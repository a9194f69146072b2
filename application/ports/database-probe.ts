/** What `server doctor` learns from a database without changing it. */
export type DatabaseProbeResult =
  | {
      reachable: true;
      schemaVersion: number;
      supportedVersion: number;
      /** How many bound credentials it holds; null before the schema has them (migration 3). */
      credentials: number | null;
    }
  | { reachable: false; reason: string };

/** Connects to a server's database once, reads its schema version, and disconnects (docs/scaling.md). */
export interface DatabaseProbe {
  probe(connectionString: string): Promise<DatabaseProbeResult>;
}
