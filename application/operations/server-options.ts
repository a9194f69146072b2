import { REVIEW_RULES } from '../../domain/model.js';
import { flag, nonEmptyText, nonNegativeInteger, oneOf, optional, text, type ArgsOf } from '../args.js';
import { array, boolean, integer, literal, nullable, object, oneOf as oneOfValues, optional as optionalProperty, record, string, lazily } from '../contract/schema.js';
import { joinPath, parentOf, resolvePath } from '../server/posix-path.js';
import { IDENTITY_MODES, STORE_KINDS } from '../server/server-config.js';
import type { ServerInitInput } from '../server/server-init.js';
import { DEFAULT_SERVICE_USER } from '../server/unit-file.js';

/** The setup root when `--root` is absent: outside /home, as the unit requires. */
export const DEFAULT_SERVER_ROOT = '/srv/taskdag';

/** The flags `server init` and `server setup` share (spec 4.6). */
export const serverInitArgs = {
  root: optional(nonEmptyText(), `Setup root holding server.json, server.env and the unit (default ${DEFAULT_SERVER_ROOT})`),
  host: optional(text(), 'Host to listen on, passed to the OS as is (default 127.0.0.1, or what server.json says)'),
  port: optional(nonNegativeInteger(), 'Port to listen on (default 7407, or what server.json says; 0 picks a free one)'),
  data_root: optional(nonEmptyText(), 'Project data root (default <root>/data)'),
  state_home: optional(nonEmptyText(), 'State directory: service lock and remote-auth.json (default <root>/state)'),
  ui_root: optional(nonEmptyText(), "Built web UI (default the package's ui/dist)"),
  store: optional(oneOf(STORE_KINDS), 'files (default, or what server.json says) or postgresql: the connection string then goes in server.env (docs/scaling.md)'),
  identities: optional(
    oneOf(IDENTITY_MODES),
    'shared (default, or what server.json says): the password logs in as any agent; bound: only credentials log in, each as the agents it names (server credential add)',
  ),
  unit: optional(oneOf(['systemd', 'none'] as const), 'systemd (default) writes taskdag-server.service; none writes only server.json and server.env'),
  service_user: optional(nonEmptyText(), `The user the service runs as (a unit's default: ${DEFAULT_SERVICE_USER}): prints the commands that create it and give it its files (never runs them)`),
  allow_missing_paths: optional(flag(), 'Do not create the data root and state home', { standalone: true }),
  force: optional(flag(), 'Recreate files that conflict with the options (the password is kept, unless server.env is structurally invalid: then a new one is minted)', { standalone: true }),
  rotate_password: optional(flag(), 'Write a new secret into server.env, changing nothing else', { standalone: true }),
  print_secret: optional(flag(), 'Print the secret (unsafe: controlled recovery or handoff only)', { standalone: true }),
};

type InitArgs = ArgsOf<typeof serverInitArgs>;

/** A path as the caller typed it, made absolute against the caller's directory. */
export function absolute(cwd: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolvePath(cwd, value);
}

/** The flags as the use case takes them, every path absolute. */
export function serverInitInput(cwd: string, args: InitArgs): Omit<ServerInitInput, 'dryRun'> {
  return {
    root: absolute(cwd, args.root) ?? DEFAULT_SERVER_ROOT,
    host: args.host,
    port: args.port,
    dataRoot: absolute(cwd, args.data_root),
    stateHome: absolute(cwd, args.state_home),
    uiRoot: absolute(cwd, args.ui_root),
    store: args.store,
    identities: args.identities,
    unit: args.unit ?? 'systemd',
    serviceUser: args.service_user,
    allowMissingPaths: args.allow_missing_paths ?? false,
    force: args.force ?? false,
    rotatePassword: args.rotate_password ?? false,
    printSecret: args.print_secret ?? false,
  };
}

export const serverConfigSchema = lazily(() => object({
  version: literal(1),
  host: string(),
  port: integer(),
  dataRoot: string(),
  stateHome: string(),
  uiRoot: string(),
  store: optionalProperty(oneOfValues(STORE_KINDS, 'Absent means files')),
  identities: optionalProperty(oneOfValues(IDENTITY_MODES, 'Absent means shared')),
  plugins: optionalProperty(record(string('The absolute path of its module'), 'The policy plugins this server runs, by name (docs/plugins.md)')),
  review: optionalProperty(oneOfValues(REVIEW_RULES, 'Who may accept a submission; absent means any (docs/agents.md)')),
}));

export const serverInitResultSchema = lazily(() => object({
  dry_run: boolean(),
  root: string(),
  unit: oneOfValues(['systemd', 'none'] as const),
  config: serverConfigSchema(),
  files: object({ config: string(), env: string(), unit: nullable(string('The unit file; null with --unit none')) }),
  actions: array(
    object({
      path: string(),
      action: oneOfValues(['create', 'keep', 'replace', 'rotate-secret', 'restrict-mode', 'defer'] as const),
      reason: optionalProperty(string()),
    }),
    'What happened to each file and directory (what would happen, in a dry run)',
  ),
  secret: object({
    source: oneOfValues(['generated', 'adopted', 'rotated', 'regenerated'] as const),
    value: optionalProperty(string('Only with --print-secret')),
  }),
  service_user: nullable(string('The user the unit runs as (--service-user, the existing unit\'s, or the default); with --unit none, --service-user or null')),
  ownership: optionalProperty(array(string(), 'With a service user: the commands that create it if missing and give it its files (never run)')),
}));

export const serverDoctorResultSchema = lazily(() => object({
  config: string(),
  env_file: string(),
  strict: boolean(),
  probed_bind: boolean(),
  findings: array(
    object({ code: string(), severity: oneOfValues(['error', 'warning'] as const), message: string(), fix: string('What to do about it') }),
    'Warnings only: an error fails the preflight with SERVER_PREFLIGHT_FAILED',
  ),
}));

/** Where the `server credential` commands find a setup: its server.json, and server.env for a PostgreSQL store. */
export const setupPathArgs = {
  config: optional(nonEmptyText(), `server.json (default ${DEFAULT_SERVER_ROOT}/server.json)`),
  env_file: optional(nonEmptyText(), "server.env, read for a PostgreSQL store's connection string (default: beside the config)"),
};

export function setupPaths(cwd: string, args: ArgsOf<typeof setupPathArgs>): { configPath: string; envPath: string } {
  const configPath = absolute(cwd, args.config) ?? joinPath(DEFAULT_SERVER_ROOT, 'server.json');
  return { configPath, envPath: absolute(cwd, args.env_file) ?? joinPath(parentOf(configPath), 'server.env') };
}

export const credentialSummarySchema = lazily(() => object({
  name: string(),
  agents: array(string(), 'The agents its bearers may act as'),
  created_at: string(),
}));

export const identitiesSchema = lazily(() => oneOfValues(IDENTITY_MODES, 'The mode server.json selects: credentials log in only when it is bound'));
