/** What `server doctor` learns from a database without changing it. */
export type DatabaseProbeResult =
  | {
      reachable: true;
      schemaVersion: number;
      supportedVersion: number;
      /** How many bound credentials it holds; null before the schema has them (migration 3). */
      credentials: number | null;
      /** The stored password verifier (unchecked) and the generation that set it (0 before migration 4); null before the first start. */
      auth: { verifier: unknown; generation: number } | null;
    }
  | { reachable: false; reason: string };

/** Connects to a server's database once, reads its schema version, and disconnects (docs/scaling.md). */
export interface DatabaseProbe {
  probe(connectionString: string): Promise<DatabaseProbeResult>;
}
