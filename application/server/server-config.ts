import { REVIEW_RULES, type ReviewRule } from '../../domain/model.js';
import { isPluginName } from '../../domain/plugins.js';
import { isAbsolutePath, joinPath } from './posix-path.js';

/** `server.json` (spec 2.6): where the server listens and keeps its data. It holds no password. */
export interface ServerConfig {
  version: 1;
  host: string;
  port: number;
  dataRoot: string;
  stateHome: string;
  uiRoot: string;
  /** Where projects live: the files under dataRoot (the default, also when absent) or PostgreSQL (docs/scaling.md). */
  store?: StoreKind;
  /**
   * The policy plugins this server runs, by name: the absolute path of each one's module. Only
   * these run on the server; a project's table names them, and a name not here is refused
   * (docs/plugins.md). Set by the operator by hand; absent: none.
   */
  plugins?: Record<string, string>;
  /** Who a bearer may act as: shared (the spec's, the default, also when absent) or bound (docs/operating.md, "Identities"). */
  identities?: IdentityMode;
  /**
   * Who may accept a submission in every project of this server: any agent (the spec's, the
   * default, also when absent) or only one other than its submitter (docs/agents.md). Set by the
   * operator by hand.
   */
  review?: ReviewRule;
  /**
   * How often, in ms, the server releases expired leases in every project (`sweep-leases` as
   * recovery; docs/agents.md, "Leases"). Absent: never; claims stay until someone sweeps them.
   */
  leaseSweepMs?: number;
  /**
   * With PostgreSQL: the base URL (`http://host:port`) the other server processes on the database
   * reach this one on, to forward the mutations of the projects it owns (docs/scaling.md,
   * "Failover"). Absent: `http://<host>:<port>` as it listens, 127.0.0.1 for a wildcard host.
   */
  advertiseUrl?: string;
}

export const LEASE_SWEEP_BOUNDS = { min: 1_000, max: 86_400_000 } as const;

export const IDENTITY_MODES = ['shared', 'bound'] as const;
export type IdentityMode = (typeof IDENTITY_MODES)[number];

/** The identity mode a config selects. */
export function identitiesOf(config: ServerConfig): IdentityMode {
  return config.identities ?? 'shared';
}

/** The review rule a config selects for its projects. */
export function reviewOf(config: ServerConfig): ReviewRule {
  return config.review ?? 'any';
}

export function reviewProblem(review: unknown): string | null {
  return review === undefined || (REVIEW_RULES as readonly unknown[]).includes(review) ? null : `review must be one of ${REVIEW_RULES.join(', ')}`;
}

export const STORE_KINDS = ['files', 'postgresql'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** The store a config selects. */
export function storeOf(config: ServerConfig): StoreKind {
  return config.store ?? 'files';
}

export const SERVER_FILE_NAMES = {
  config: 'server.json',
  env: 'server.env',
  unit: 'taskdag-server.service',
  lock: '.server.lock',
  auth: 'remote-auth.json',
  credentials: 'remote-credentials.json',
} as const;

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7407;

const KEYS = ['version', 'host', 'port', 'dataRoot', 'stateHome', 'uiRoot', 'store', 'identities', 'plugins', 'review', 'leaseSweepMs', 'advertiseUrl'] as const;

/** The config a file holds, or what is wrong with it. */
export function parseServerConfig(text: string): { config: ServerConfig } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'not a JSON object' };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) return { problem: `unknown fields: ${unknown.join(', ')}` };
  if (record.version !== 1) return { problem: 'version must be 1' };
  const problem =
    hostProblem(record.host) ??
    portProblem(record.port) ??
    pathProblem('dataRoot', record.dataRoot) ??
    pathProblem('stateHome', record.stateHome) ??
    pathProblem('uiRoot', record.uiRoot) ??
    storeProblem(record.store) ??
    identitiesProblem(record.identities) ??
    pluginsProblem(record.plugins) ??
    reviewProblem(record.review) ??
    leaseSweepProblem(record.leaseSweepMs) ??
    advertiseUrlProblem(record.advertiseUrl);
  if (problem) return { problem };
  return { config: record as unknown as ServerConfig };
}

export function renderServerConfig(config: ServerConfig): string {
  // `store` and `identities` are written only when not the default, so a default server's config stays as it was.
  const ordered = Object.fromEntries(KEYS.filter((key) => config[key] !== undefined).map((key) => [key, config[key]]));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export function sameServerConfig(a: ServerConfig, b: ServerConfig): boolean {
  return KEYS.every((key) =>
    key === 'store'
      ? storeOf(a) === storeOf(b)
      : key === 'identities'
        ? identitiesOf(a) === identitiesOf(b)
        : key === 'plugins'
          ? samePlugins(a.plugins, b.plugins)
          : key === 'review'
            ? reviewOf(a) === reviewOf(b)
            : a[key] === b[key],
  );
}

function samePlugins(a: Record<string, string> = {}, b: Record<string, string> = {}): boolean {
  return Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([name, module]) => b[name] === module);
}

/** The allow-list of plugins: names a plugin may have, each with the absolute path of its module. */
export function pluginsProblem(plugins: unknown): string | null {
  if (plugins === undefined) return null;
  if (typeof plugins !== 'object' || plugins === null || Array.isArray(plugins)) return 'plugins must be an object: plugin name -> absolute module path';
  for (const [name, module] of Object.entries(plugins)) {
    if (!isPluginName(name)) return `plugins: ${JSON.stringify(name)} is not a plugin name (1-64 of a-z 0-9 . _ -)`;
    const problem = pathProblem(`plugins.${name}`, module);
    if (problem) return problem;
  }
  return null;
}

export function leaseSweepProblem(every: unknown): string | null {
  if (every === undefined) return null;
  const { min, max } = LEASE_SWEEP_BOUNDS;
  return Number.isInteger(every) && (every as number) >= min && (every as number) <= max ? null : `leaseSweepMs must be a whole number of milliseconds from ${min} to ${max}`;
}

/** An http URL of a host and a port, and nothing after them: the request's path is added to it. */
export function advertiseUrlProblem(url: unknown): string | null {
  if (url === undefined) return null;
  const problem = 'advertiseUrl must be http://host:port, the address the other server processes reach this one on';
  if (typeof url !== 'string' || !/^http:\/\/[^/?#\s]+:\d{1,5}$/.test(url)) return problem;
  try {
    const parsed = new URL(url);
    return parsed.hostname !== '' && parsed.port !== '' && !parsed.username && !parsed.password ? null : problem;
  } catch {
    return problem;
  }
}

/** The address the other processes forward to: `advertiseUrl`, or where the server listens (a wildcard host as loopback). */
export function advertisedUrl(config: ServerConfig, listening: { host: string; port: number }): string {
  if (config.advertiseUrl) return config.advertiseUrl;
  const host = ['0.0.0.0', '::', ''].includes(listening.host) ? '127.0.0.1' : listening.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${listening.port}`;
}

export function storeProblem(store: unknown): string | null {
  return store === undefined || (STORE_KINDS as readonly unknown[]).includes(store) ? null : `store must be one of ${STORE_KINDS.join(', ')}`;
}

export function identitiesProblem(identities: unknown): string | null {
  return identities === undefined || (IDENTITY_MODES as readonly unknown[]).includes(identities) ? null : `identities must be one of ${IDENTITY_MODES.join(', ')}`;
}

/** Spec 4.6: any non-empty host string goes to the operating system, without a policy of ours. */
export function hostProblem(host: unknown): string | null {
  if (typeof host !== 'string' || host === '') return 'host must be a non-empty string';
  return /[\s\u0000-\u001f]/.test(host) ? 'host must not contain spaces or control characters' : null;
}

/** Port 0 asks the system for a free port (tests, one-off runs); the server prints the real one. */
export function portProblem(port: unknown): string | null {
  return Number.isInteger(port) && (port as number) >= 0 && (port as number) <= 65535 ? null : 'port must be a whole number from 0 to 65535';
}

export function pathProblem(field: string, value: unknown): string | null {
  if (typeof value !== 'string' || !isAbsolutePath(value)) return `${field} must be an absolute path`;
  return /[\u0000-\u001f]/.test(value) ? `${field} must not contain control characters` : null;
}

export function serverFile(root: string, name: keyof typeof SERVER_FILE_NAMES): string {
  return joinPath(root, SERVER_FILE_NAMES[name]);
}
