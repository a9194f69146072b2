/**
 * The server's tunable bounds, read from its environment (the env file under systemd). Each has a
 * default and a range, so a typo can never remove a bound: a value out of range is refused by the
 * preflight and by `server run`. Decisions and reasons: docs/operating.md.
 */
export interface ServerSettings {
  maxBodyBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  drainMs: number;
  /** With PostgreSQL: how long a process's ownership of its projects outlives its last renewal (docs/scaling.md, "Failover"). */
  ownerLeaseMs: number;
}

interface Bound {
  key: string;
  field: keyof ServerSettings;
  fallback: number;
  min: number;
  max: number;
}

const MIB = 1024 * 1024;

export const SETTING_BOUNDS: readonly Bound[] = [
  // The spec's example value: a 50k-node project's full state, as a push carries it, fits with room.
  { key: 'TASKDAG_SERVER_MAX_BODY_BYTES', field: 'maxBodyBytes', fallback: 16 * MIB, min: 1024, max: 1024 * MIB },
  { key: 'TASKDAG_SERVER_HEADERS_TIMEOUT_MS', field: 'headersTimeoutMs', fallback: 10_000, min: 100, max: 120_000 },
  { key: 'TASKDAG_SERVER_REQUEST_TIMEOUT_MS', field: 'requestTimeoutMs', fallback: 60_000, min: 100, max: 600_000 },
  { key: 'TASKDAG_SERVER_DRAIN_MS', field: 'drainMs', fallback: 10_000, min: 0, max: 120_000 },
  { key: 'TASKDAG_SERVER_OWNER_LEASE_MS', field: 'ownerLeaseMs', fallback: 10_000, min: 500, max: 300_000 },
];

export const DEFAULT_SETTINGS = Object.fromEntries(SETTING_BOUNDS.map((bound) => [bound.field, bound.fallback])) as unknown as ServerSettings;

export interface SettingProblem {
  key: string;
  value: string;
  problem: string;
}

/** The settings an environment gives, or every value that is out of its range. */
export function readServerSettings(env: ReadonlyMap<string, string> | Record<string, string | undefined>): { settings: ServerSettings } | { problems: SettingProblem[] } {
  const get = (key: string) => (env instanceof Map ? env.get(key) : (env as Record<string, string | undefined>)[key]);
  const settings = { ...DEFAULT_SETTINGS };
  const problems: SettingProblem[] = [];
  for (const bound of SETTING_BOUNDS) {
    const value = get(bound.key);
    if (value === undefined || value === '') continue;
    const number = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(number >= bound.min && number <= bound.max)) {
      problems.push({ key: bound.key, value, problem: `${bound.key} must be a whole number from ${bound.min} to ${bound.max}` });
    } else {
      settings[bound.field] = number;
    }
  }
  if (problems.length === 0 && settings.headersTimeoutMs > settings.requestTimeoutMs) {
    problems.push({
      key: 'TASKDAG_SERVER_HEADERS_TIMEOUT_MS',
      value: String(settings.headersTimeoutMs),
      problem: `TASKDAG_SERVER_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}) must not exceed TASKDAG_SERVER_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}): headers are part of the request`,
    });
  }
  return problems.length > 0 ? { problems } : { settings };
}
