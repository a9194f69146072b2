import { DomainError } from '../../domain/errors.js';
import type { HostFiles } from '../ports/host-files.js';
import type { SecretSource } from '../ports/secret-source.js';
import { isAbsolutePath, joinPath } from './posix-path.js';
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  hostProblem,
  parseServerConfig,
  pathProblem,
  portProblem,
  renderServerConfig,
  sameServerConfig,
  serverFile,
  storeOf,
  type IdentityMode,
  type ServerConfig,
  type StoreKind,
} from './server-config.js';
import { parseEnvFile, PASSWORD_GENERATION_KEY, passwordGeneration, renderEnvFile, rotateSecret, type EnvFile } from './server-env.js';
import { DEFAULT_SETTINGS } from './server-settings.js';
import { checkUnitPaths, DEFAULT_SERVICE_USER, renderUnit, unitServiceUser, unitStartsServerRun, type Installation, type UnitInput } from './unit-file.js';

export const FILE_MODE = 0o600;
export const DIRECTORY_MODE = 0o700;

/** The flags of `server init` (spec 4.6), every path already absolute. */
export interface ServerInitInput {
  root: string;
  host?: string;
  port?: number;
  dataRoot?: string;
  stateHome?: string;
  uiRoot?: string;
  store?: StoreKind;
  identities?: IdentityMode;
  unit: 'systemd' | 'none';
  serviceUser?: string;
  dryRun: boolean;
  allowMissingPaths: boolean;
  force: boolean;
  rotatePassword: boolean;
  printSecret: boolean;
}

export interface ServerInitPorts {
  files: HostFiles;
  secrets: SecretSource;
  installation: Installation;
  /** The package's own `ui/dist`, the default UI root. */
  defaultUiRoot: string;
}

export type Action = 'create' | 'keep' | 'replace' | 'rotate-secret' | 'restrict-mode' | 'defer';

export interface ServerInitResult {
  dry_run: boolean;
  root: string;
  unit: 'systemd' | 'none';
  config: ServerConfig;
  files: { config: string; env: string; unit: string | null };
  /** What happened to each file and directory (what would happen, in a dry run). */
  actions: { path: string; action: Action; reason?: string }[];
  /** Where the password comes from: a new file, an adopted one, a rotation, or a structurally invalid file replaced. */
  secret: { source: 'generated' | 'adopted' | 'rotated' | 'regenerated'; value?: string };
  /** The user the unit runs as (`--service-user`, the unit's, or the default); with --unit none, `--service-user` or null. */
  service_user: string | null;
  /** With a service user: the commands that create it if missing and give it its files (never run by init). */
  ownership?: string[];
}

interface Step {
  path: string;
  action: Action | 'conflict';
  reason?: string;
  /** The text to write, for files. */
  text?: string;
  directory?: boolean;
}

/**
 * `server init` (spec 4.6): plans every artifact against what is on disk, refuses the whole run
 * when an artifact conflicts with the options and `--force` is absent, then writes (unless a dry
 * run) only what is new or must change. Matching artifacts are never touched and a plain re-run
 * never rotates the password.
 */
export async function serverInit(ports: ServerInitPorts, input: ServerInitInput): Promise<ServerInitResult> {
  const root = input.root;
  const paths = { config: serverFile(root, 'config'), env: serverFile(root, 'env'), unit: serverFile(root, 'unit') };
  const existingConfig = await readExistingConfig(ports.files, paths.config);
  const config = desiredConfig(input, existingConfig, ports.defaultUiRoot);
  const serviceUser = checkServiceUser(
    input.unit === 'systemd' ? (input.serviceUser ?? unitServiceUser(await ports.files.read(paths.unit)) ?? DEFAULT_SERVICE_USER) : input.serviceUser,
  );
  const unitInput: UnitInput = { installation: ports.installation, configPath: paths.config, envPath: paths.env, config, serviceUser: serviceUser ?? DEFAULT_SERVICE_USER };
  if (input.unit === 'systemd') checkUnitPaths(unitInput, root);

  const secret = { value: null as string | null };
  const fresh = () => (secret.value ??= ports.secrets.secret());
  const envPlan = await planEnv(ports.files, paths.env, input, storeOf(config), fresh);
  const steps: Step[] = [
    await planDirectory(ports.files, root, false),
    await keptPrivate(ports.files, await planFile(ports.files, paths.config, renderServerConfig(config), input.force, (text) => configMatches(text, config))),
    await keptPrivate(ports.files, envPlan.step),
    ...(input.unit === 'systemd' ? [await keptPrivate(ports.files, await planUnit(ports.files, paths.unit, renderUnit(unitInput), input.force))] : []),
    await planDirectory(ports.files, config.dataRoot, input.allowMissingPaths),
    await planDirectory(ports.files, config.stateHome, input.allowMissingPaths),
  ];
  refuseConflicts(steps, input, paths.env);

  if (!input.dryRun) await apply(ports.files, steps);
  const password = input.printSecret && !input.dryRun ? envPlan.password(secret.value) : undefined;
  return {
    dry_run: input.dryRun,
    root,
    unit: input.unit,
    config,
    files: { config: paths.config, env: paths.env, unit: input.unit === 'systemd' ? paths.unit : null },
    actions: steps.map(({ path, action, reason }) => ({ path, action: action as Action, ...(reason ? { reason } : {}) })),
    secret: { source: envPlan.source, ...(password !== undefined ? { value: password } : {}) },
    service_user: serviceUser,
    ...(serviceUser ? { ownership: ownershipCommands(serviceUser, root, paths, config, input.unit) } : {}),
  };
}

async function readExistingConfig(files: HostFiles, path: string): Promise<ServerConfig | null> {
  const text = await files.read(path);
  if (text === null) return null;
  const parsed = parseServerConfig(text);
  return 'config' in parsed ? parsed.config : null;
}

/** server.json's settings that `server init` has no flag for: the plugin allow-list, the review rule, the lease sweep, the address other PostgreSQL processes forward to. */
const HAND_EDITED_KEYS = ['plugins', 'review', 'leaseSweepMs', 'advertiseUrl'] as const satisfies readonly (keyof ServerConfig)[];

/** A flag wins; without it a re-run keeps what server.json (or the unit, for the user) says; a first run takes the defaults. */
function desiredConfig(input: ServerInitInput, existing: ServerConfig | null, defaultUiRoot: string): ServerConfig {
  const config: ServerConfig = {
    version: 1,
    host: input.host ?? existing?.host ?? DEFAULT_HOST,
    port: input.port ?? existing?.port ?? DEFAULT_PORT,
    dataRoot: input.dataRoot ?? existing?.dataRoot ?? joinPath(input.root, 'data'),
    stateHome: input.stateHome ?? existing?.stateHome ?? joinPath(input.root, 'state'),
    uiRoot: input.uiRoot ?? existing?.uiRoot ?? defaultUiRoot,
  };
  const store = input.store ?? existing?.store ?? 'files';
  if (store !== 'files') config.store = store;
  const identities = input.identities ?? existing?.identities ?? 'shared';
  if (identities !== 'shared') config.identities = identities;
  // Settings with no flag are the operator's hand edits: a re-run (a password rotation) keeps them as written.
  for (const key of HAND_EDITED_KEYS) {
    if (existing?.[key] !== undefined) Object.assign(config, { [key]: existing[key] });
  }
  const checks: [string, string, string | null][] = [
    ['--root', 'root', isAbsolutePath(input.root) ? null : '--root must be an absolute path'],
    ['--host', 'host', hostProblem(config.host)],
    ['--port', 'port', portProblem(config.port)],
    ['--data-root', 'dataRoot', pathProblem('--data-root', config.dataRoot)],
    ['--state-home', 'stateHome', pathProblem('--state-home', config.stateHome)],
    ['--ui-root', 'uiRoot', pathProblem('--ui-root', config.uiRoot)],
  ];
  for (const [flag, field, problem] of checks) {
    if (problem) throw new DomainError('INVALID_ARGUMENT', problem, { flag, field });
  }
  if (config.dataRoot === config.stateHome) {
    throw new DomainError('INVALID_ARGUMENT', '--data-root and --state-home must be different directories', { flag: '--state-home' });
  }
  return config;
}

function checkServiceUser(user: string | undefined): string | null {
  if (user === undefined) return null;
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(user)) {
    throw new DomainError('INVALID_ARGUMENT', `--service-user must be a system user name (letters, digits, _ and -), not ${JSON.stringify(user)}`, {
      flag: '--service-user',
    });
  }
  return user;
}

function configMatches(text: string, config: ServerConfig): string | null {
  const parsed = parseServerConfig(text);
  if ('problem' in parsed) return `invalid: ${parsed.problem}`;
  return sameServerConfig(parsed.config, config) ? null : 'differs from the requested options';
}

async function planFile(files: HostFiles, path: string, text: string, force: boolean, mismatch: (existing: string) => string | null): Promise<Step> {
  const existing = await files.read(path);
  if (existing === null) return { path, action: 'create', text };
  const reason = mismatch(existing);
  if (reason === null) return { path, action: 'keep' };
  return { path, action: force ? 'replace' : 'conflict', reason, text };
}

function planUnit(files: HostFiles, path: string, text: string, force: boolean): Promise<Step> {
  return planFile(files, path, text, force, (existing) => {
    if (existing === text) return null;
    return unitStartsServerRun(existing)
      ? 'differs from the requested options'
      : 'its start command is not `server run` (a unit from before the single-binary runtime): regenerate it';
  });
}

type SecretSourceName = ServerInitResult['secret']['source'];

/** The env file's plan, where the password comes from, and the password a `--print-secret` shows. */
async function planEnv(files: HostFiles, path: string, input: ServerInitInput, store: StoreKind, fresh: () => string) {
  const existing = await files.read(path);
  const parsed = existing === null ? null : parseEnvFile(existing);
  const adopted = parsed && 'entries' in parsed ? parsed.entries.get('TASKDAG_SERVER_PASSWORD')! : null;
  const plan = (step: Step, source: SecretSourceName) => ({
    step,
    source,
    password: (minted: string | null) => minted ?? adopted ?? undefined,
  });
  // No secret is minted in a dry run: nothing would keep it.
  const mint = () => (input.dryRun ? '' : fresh());
  if (existing === null) return plan({ path, action: 'create', text: renderEnvFile(mint(), DEFAULT_SETTINGS.maxBodyBytes, store) }, 'generated');
  if (adopted !== null) {
    if (!input.rotatePassword) return plan({ path, action: 'keep' }, 'adopted');
    const generation = passwordGeneration((parsed as EnvFile).entries);
    if ('problem' in generation) throw new DomainError('INVALID_ARGUMENT', `${path}: ${generation.problem}: correct the line, then rotate again`, { path, field: PASSWORD_GENERATION_KEY });
    return plan({ path, action: 'rotate-secret', text: rotateSecret(existing, mint(), generation.generation + 1) }, 'rotated');
  }
  const reason = `structurally invalid: ${(parsed as { problem: string }).problem}`;
  if (!input.force) return plan({ path, action: 'conflict', reason }, 'adopted');
  // A new secret is a rotation: one generation past whatever the broken file still says.
  const previous = Number(new RegExp(`^${PASSWORD_GENERATION_KEY}=(\\d{1,15})$`, 'm').exec(existing)?.[1] ?? 0);
  return plan({ path, action: 'replace', reason, text: renderEnvFile(mint(), DEFAULT_SETTINGS.maxBodyBytes, store, previous + 1) }, 'regenerated');
}

/**
 * A kept file that group or others may read is made private again (rule 1: 0600), its content
 * untouched: an adopted server.env would otherwise leave the password readable, and the preflight
 * refuses it.
 */
async function keptPrivate(files: HostFiles, step: Step): Promise<Step> {
  if (step.action !== 'keep') return step;
  const mode = (await files.facts(step.path))?.mode ?? FILE_MODE;
  if ((mode & 0o077) === 0) return step;
  return { path: step.path, action: 'restrict-mode', reason: `mode ${mode.toString(8).padStart(4, '0')} let group or others read it: set to 0600` };
}

async function planDirectory(files: HostFiles, path: string, deferred: boolean): Promise<Step> {
  const facts = await files.facts(path);
  if (facts?.kind === 'directory') return { path, action: 'keep', directory: true };
  if (facts) return { path, action: 'conflict', reason: 'exists and is not a directory', directory: true };
  return { path, action: deferred ? 'defer' : 'create', directory: true };
}

/**
 * Refuses the run when anything conflicts, saying truthfully what would clear each conflict:
 * --force recreates a file (and the password survives unless server.env itself is the invalid
 * file, or --rotate-password asks otherwise), but never replaces a path that is not a directory.
 */
function refuseConflicts(steps: Step[], input: ServerInitInput, envPath: string): void {
  const conflicts = steps.filter((step) => step.action === 'conflict');
  if (conflicts.length === 0) return;
  const paths = (some: Step[]) => some.map((step) => step.path).join(', ');
  const files = conflicts.filter((step) => !step.directory);
  const notDirectories = conflicts.filter((step) => step.directory);
  const advice: string[] = [];
  if (files.length > 0) advice.push(`rerun with --force to recreate ${paths(files)} (${passwordAfterForce(files, input, envPath)})`);
  if (notDirectories.length > 0) advice.push(`move ${paths(notDirectories)} aside by hand: it should be a directory, and --force never replaces it`);
  throw new DomainError('SERVER_SETUP_CONFLICT', `${conflicts.length} existing artifact(s) conflict with the requested options: ${advice.join('; ')}`, {
    conflicts: conflicts.map(({ path, reason }) => ({ path, reason })),
  });
}

function passwordAfterForce(files: Step[], input: ServerInitInput, envPath: string): string {
  if (files.some((step) => step.path === envPath)) return `${envPath} is structurally invalid, so --force writes a new one with a new password`;
  return input.rotatePassword ? 'the password is rotated, as --rotate-password asks' : 'the existing password is kept';
}

/** Directories first (a file's directory must exist), then the files; each write durable. */
async function apply(files: HostFiles, steps: Step[]): Promise<void> {
  for (const step of steps) {
    if (step.directory && step.action === 'create') await files.makeDirectory(step.path, DIRECTORY_MODE);
  }
  for (const step of steps) {
    if (step.action === 'restrict-mode') await files.setMode(step.path, FILE_MODE);
    else if (!step.directory && step.text !== undefined && step.action !== 'keep') await files.writeFile(step.path, step.text, FILE_MODE);
  }
}

/** The user's creation when it does not exist yet (a system account with its own group, no login), then its files. */
function ownershipCommands(user: string, root: string, paths: { config: string; env: string }, config: ServerConfig, unit: 'systemd' | 'none'): string[] {
  // Under systemd the env file is read by the service manager as root and stays root's.
  const own = unit === 'none' ? `${root} ${paths.config} ${paths.env}` : `${root} ${paths.config}`;
  return [
    `id -u ${user} >/dev/null 2>&1 || sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin ${user}`,
    `sudo chown ${user}: ${own}`,
    `sudo chown -R ${user}: ${config.dataRoot} ${config.stateHome}`,
  ];
}
