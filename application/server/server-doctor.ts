import { DomainError } from '../../domain/errors.js';
import type { BindProbe } from '../ports/bind-probe.js';
import type { DatabaseProbe, DatabaseProbeResult } from '../ports/database-probe.js';
import type { PasswordHasher } from '../ports/credentials.js';
import type { HostFiles } from '../ports/host-files.js';
import { joinPath } from './posix-path.js';
import { corruptAuthRecovery, parseAuthRecord, verifierProblem, type PasswordVerifier } from './auth-record.js';
import { parseCredentials } from './credential-record.js';
import { identitiesOf, parseServerConfig, SERVER_FILE_NAMES, storeOf, type ServerConfig } from './server-config.js';
import { DATABASE_URL_KEY, databaseUrlProblem, parseEnvFile, PASSWORD_GENERATION_KEY, PASSWORD_KEY, passwordGeneration } from './server-env.js';
import { readServerSettings } from './server-settings.js';

export interface ServerDoctorInput {
  configPath: string;
  envPath: string;
  probeBind: boolean;
  strict: boolean;
}

export interface ServerDoctorPorts {
  files: HostFiles;
  /** Compares this host's password with the verifier a shared database holds. */
  hasher: Pick<PasswordHasher, 'matches'>;
  bind: BindProbe;
  database: DatabaseProbe;
}

export interface Finding {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  /** What the operator does about it, in words. */
  fix: string;
}

export interface ServerDoctorResult {
  config: string;
  env_file: string;
  strict: boolean;
  probed_bind: boolean;
  /** Warnings only: any error fails the preflight with SERVER_PREFLIGHT_FAILED. */
  findings: Finding[];
}

const SHORT_SECRET = 16;

/**
 * The preflight of spec 4.6: checks what `server run` will need, without starting the server,
 * taking the service lock or creating anything. Every finding has a code and its fix. Without
 * `--strict`, a port that cannot be bound and a missing UI build are warnings.
 */
export async function serverDoctor(ports: ServerDoctorPorts, input: ServerDoctorInput): Promise<ServerDoctorResult> {
  const findings: Finding[] = [];
  const add = (code: string, severity: Finding['severity'], message: string, fix: string) => findings.push({ code, severity, message, fix });
  const soft = input.strict ? 'error' : 'warning';

  const config = await checkConfig(ports.files, input.configPath, add);
  const env = await checkEnv(ports.files, input.envPath, add);
  const database = config && storeOf(config) === 'postgresql' && env ? await checkDatabase(ports.database, env.get(DATABASE_URL_KEY), input.envPath, add) : null;
  if (database?.reachable && database.auth && env) await checkDatabasePassword(ports.hasher, database.auth, env, input.envPath, add);
  if (config) {
    await checkDirectory(ports.files, 'DATA_ROOT', config.dataRoot, add);
    await checkDirectory(ports.files, 'STATE_HOME', config.stateHome, add);
    if (storeOf(config) === 'files') await checkAuthFile(ports.files, joinPath(config.stateHome, SERVER_FILE_NAMES.auth), add);
    await checkCredentials(ports.files, config, input.configPath, database, add);
    await checkPlugins(ports.files, config, input.configPath, add);
    const index = await ports.files.facts(joinPath(config.uiRoot, 'index.html'));
    if (index?.kind !== 'file') {
      add('UI_ROOT_MISSING', soft, `No UI build at ${config.uiRoot} (no index.html): the board answers 503, the API works`, 'Build the board into that directory, or run `taskdag server init --force --ui-root <dir>`');
    }
    if (input.probeBind) {
      const failure = await ports.bind.probe(config.host, config.port);
      if (failure) {
        add('BIND_UNAVAILABLE', soft, `Cannot listen on ${config.host}:${config.port} (${failure})`, 'Stop whatever holds the port (perhaps a running server), or choose another with `taskdag server init --force --port <n>`');
      }
    }
  }

  const errors = findings.filter((finding) => finding.severity === 'error');
  const result: ServerDoctorResult = { config: input.configPath, env_file: input.envPath, strict: input.strict, probed_bind: input.probeBind, findings };
  if (errors.length > 0) {
    throw new DomainError('SERVER_PREFLIGHT_FAILED', `The preflight found ${errors.length} problem(s): ${errors.map((error) => error.code).join(', ')} (see details.findings)`, { ...result });
  }
  return result;
}

type Add = (code: string, severity: Finding['severity'], message: string, fix: string) => void;

async function checkPrivateFile(files: HostFiles, code: string, path: string, add: Add): Promise<string | null> {
  const facts = await files.facts(path);
  if (!facts) {
    add(`${code}_MISSING`, 'error', `${path} does not exist`, 'Run `taskdag server init --root <dir>` (or pass the right --config / --env-file)');
    return null;
  }
  if (facts.kind !== 'file') {
    add(`${code}_NOT_FILE`, 'error', `${path} is not a regular file`, 'Move it aside and run `taskdag server init --root <dir>`');
    return null;
  }
  if ((facts.mode & 0o077) !== 0) {
    add(`${code}_MODE`, 'error', `${path} has mode ${facts.mode.toString(8).padStart(4, '0')}; it must be private (0600)`, `chmod 600 ${path}`);
  }
  return files.read(path);
}

async function checkConfig(files: HostFiles, path: string, add: Add): Promise<ServerConfig | null> {
  const text = await checkPrivateFile(files, 'CONFIG', path, add);
  if (text === null) return null;
  const parsed = parseServerConfig(text);
  if ('problem' in parsed) {
    add('CONFIG_INVALID', 'error', `${path} is not a valid server configuration: ${parsed.problem}`, 'Regenerate it with `taskdag server init --root <dir> --force`');
    return null;
  }
  return parsed.config;
}

/**
 * The plugins the server runs (server.json `plugins`): each module is there, and only its owner
 * may change it, since whoever can write a listed module runs code in the server.
 */
async function checkPlugins(files: HostFiles, config: ServerConfig, configPath: string, add: Add): Promise<void> {
  for (const [name, module] of Object.entries(config.plugins ?? {})) {
    const facts = await files.facts(module);
    if (facts === null || facts.kind === 'other') {
      add('PLUGIN_MODULE_MISSING', 'error', `Plugin ${name}: no module at ${module}; every operation of a project that uses it would fail`, `Install the module there, or remove ${name} from plugins in ${configPath}`);
    } else if ((facts.mode & 0o022) !== 0) {
      add('PLUGIN_MODULE_WRITABLE', 'error', `Plugin ${name}: ${module} has mode ${facts.mode.toString(8).padStart(4, '0')}; others may change code the server runs`, `chmod go-w ${module}`);
    }
  }
}

/** The env file's entries, once it parses. */
async function checkEnv(files: HostFiles, path: string, add: Add): Promise<Map<string, string> | null> {
  const text = await checkPrivateFile(files, 'ENV', path, add);
  if (text === null) return null;
  const parsed = parseEnvFile(text);
  if ('problem' in parsed) {
    add('ENV_INVALID', 'error', `${path} is not a valid env file: ${parsed.problem}`, 'Fix the line, or let `taskdag server init --root <dir> --force` write a new file with a new secret');
    return null;
  }
  if (parsed.entries.get(PASSWORD_KEY)!.length < SHORT_SECRET) {
    add('SECRET_WEAK', 'warning', `${PASSWORD_KEY} is shorter than ${SHORT_SECRET} characters`, 'Rotate to a generated secret: `taskdag server init --root <dir> --rotate-password`');
  }
  const generation = passwordGeneration(parsed.entries);
  if ('problem' in generation) {
    add('PASSWORD_GENERATION_INVALID', 'error', `${generation.problem} (${path})`, `Correct ${PASSWORD_GENERATION_KEY} in ${path}: copy the line from the host that last rotated the password`);
  }
  const settings = readServerSettings(parsed.entries);
  if ('problems' in settings) {
    for (const problem of settings.problems) {
      add('SETTING_OUT_OF_RANGE', 'error', `${problem.problem} (${path} says ${JSON.stringify(problem.value)})`, `Correct ${problem.key} in ${path}, or remove the line to use the default`);
    }
  }
  return parsed.entries;
}

/**
 * The database of a postgresql store: its connection string is there, it answers, and its schema
 * is one this taskdag can run (an older one is migrated by `server run`, a newer one refused).
 * Nothing is created or migrated here; no finding repeats the connection string.
 */
async function checkDatabase(database: DatabaseProbe, url: string | undefined, envPath: string, add: Add): Promise<DatabaseProbeResult | null> {
  const problem = databaseUrlProblem(url);
  if (problem) {
    add('DATABASE_URL_MISSING', 'error', `${envPath}: ${problem}`, `Add a line ${DATABASE_URL_KEY}=postgresql://user:password@host:5432/database to ${envPath} (docs/scaling.md)`);
    return null;
  }
  const found = await database.probe(url!);
  if (!found.reachable) {
    add('DATABASE_UNREACHABLE', 'error', `Cannot reach the database named by ${DATABASE_URL_KEY}: ${found.reason}`, 'Check the host, port, user, password and database name in server.env, and that PostgreSQL accepts this host (pg_hba.conf)');
  } else if (found.schemaVersion > found.supportedVersion) {
    add('DATABASE_SCHEMA_NEWER', 'error', `The database holds taskdag schema ${found.schemaVersion}, newer than this taskdag knows (${found.supportedVersion})`, 'Upgrade taskdag on this host to the version the other servers run');
  } else if (found.schemaVersion < found.supportedVersion) {
    add('DATABASE_SCHEMA_BEHIND', 'warning', `The database holds taskdag schema ${found.schemaVersion}; \`server run\` applies migrations ${found.schemaVersion + 1} to ${found.supportedVersion} when it starts`, 'Nothing to do, or back the database up first (docs/scaling.md: migrations only add, never drop)');
  }
  return found;
}

/**
 * With several processes on one database, what `server run` will do with this host's password
 * (docs/scaling.md): keep the stored one, rotate to it (a newer generation: every session ends),
 * or refuse it (SERVER_PASSWORD_STALE: an older server.env). A damaged verifier row is reported
 * with its recovery. One slow hash, as a start costs.
 */
async function checkDatabasePassword(
  hasher: Pick<PasswordHasher, 'matches'>,
  auth: { verifier: unknown; generation: number },
  env: Map<string, string>,
  envPath: string,
  add: Add,
): Promise<void> {
  const problem = verifierProblem(auth.verifier);
  if (problem) {
    add('AUTH_RECORD_CORRUPT', 'error', `The password verifier in the database is corrupt (${problem}): the server will not start`, corruptAuthRecovery('postgresql:taskdag_auth'));
    return;
  }
  const generation = passwordGeneration(env);
  if ('problem' in generation || (await hasher.matches(env.get(PASSWORD_KEY)!, auth.verifier as PasswordVerifier))) return;
  if (generation.generation > auth.generation) {
    add('PASSWORD_ROTATION_PENDING', 'warning', `${envPath} holds a new password (generation ${generation.generation}, the database ${auth.generation}): \`server run\` will rotate to it and end every session`, 'Nothing to do if you rotated on purpose; then copy this server.env to every other host (docs/scaling.md)');
  } else {
    add('PASSWORD_STALE', 'error', `${envPath} holds another password than the database (generation ${generation.generation}, the database ${auth.generation}): \`server run\` will refuse it (SERVER_PASSWORD_STALE)`, 'Copy server.env from the host that rotated the password last (docs/scaling.md, "Rotating the password on several hosts")');
  }
}

/**
 * Bound identities (docs/operating.md, section 8): a credentials file the server cannot parse
 * fails every login of a bound server, and a bound server without a credential lets nobody in.
 * The credentials are counted where the store keeps them (the file, or the database's table).
 */
async function checkCredentials(files: HostFiles, config: ServerConfig, configPath: string, database: DatabaseProbeResult | null, add: Add): Promise<void> {
  const bound = identitiesOf(config) === 'bound';
  let count: number | null = null;
  if (storeOf(config) === 'files') {
    const path = joinPath(config.stateHome, SERVER_FILE_NAMES.credentials);
    let text: string | null;
    try {
      text = await files.read(path);
    } catch {
      add('CREDENTIALS_UNREADABLE', 'warning', `Cannot read ${path}, so it was not checked`, 'Run the preflight as the user the server runs as');
      return;
    }
    const parsed = text === null ? { credentials: [] } : parseCredentials(text);
    if ('problem' in parsed) {
      add('CREDENTIALS_INVALID', bound ? 'error' : 'warning', `${path} is not a valid credentials file: ${parsed.problem}`, 'Restore it from a backup, or move it aside and issue the credentials again with `taskdag server credential add`');
      return;
    }
    count = parsed.credentials.length;
  } else if (database?.reachable) {
    count = database.credentials ?? 0;
  }
  if (bound && count === 0) {
    add('IDENTITIES_NO_CREDENTIALS', 'warning', 'Identities are bound and no credential exists: nobody can log in', `Issue one: taskdag server credential add <name> --agents <agent,...> --config ${configPath}`);
  }
}

async function checkDirectory(files: HostFiles, code: string, path: string, add: Add): Promise<void> {
  const facts = await files.facts(path);
  if (!facts) {
    add(`${code}_MISSING`, 'error', `${path} does not exist`, `Create it: mkdir -p -m 700 ${path} (then give it to the service user), or rerun \`taskdag server init\` without --allow-missing-paths`);
  } else if (facts.kind !== 'directory') {
    add(`${code}_NOT_DIRECTORY`, 'error', `${path} is not a directory`, 'Move it aside, or choose another path with `taskdag server init --force`');
  } else if (!(await files.writable(path))) {
    add(`${code}_NOT_WRITABLE`, 'error', `${path} is not writable by this user`, 'Give it to the user the server runs as (see the ownership commands of `taskdag server init --service-user`)');
  } else if ((facts.mode & 0o077) !== 0) {
    add(`${code}_MODE`, 'warning', `${path} has mode ${facts.mode.toString(8).padStart(4, '0')}; other users can reach project data`, `chmod 700 ${path}`);
  }
}

/**
 * The auth file a previous start left (none before the first start): one that does not parse,
 * or whose verifier is out of range, stops `server run`, so the preflight names it with the
 * recovery of spec 5.6. A file the doctor's user may not read is only a warning.
 */
async function checkAuthFile(files: HostFiles, path: string, add: Add): Promise<void> {
  let text: string | null;
  try {
    text = await files.read(path);
  } catch {
    add('AUTH_FILE_UNREADABLE', 'warning', `Cannot read ${path}, so it was not checked`, 'Run the preflight as the user the server runs as');
    return;
  }
  if (text === null) return;
  const parsed = parseAuthRecord(text);
  if ('problem' in parsed) add('AUTH_FILE_CORRUPT', 'error', `${path} is corrupt (${parsed.problem}): the server will not start`, corruptAuthRecovery(path));
}
