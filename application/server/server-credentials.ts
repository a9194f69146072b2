import { ADMINISTRATORS } from '../../domain/permissions.js';
import { DomainError } from '../../domain/errors.js';
import type { CredentialAdmin, OpenedCredentials } from '../ports/credential-admin.js';
import type { HostFiles } from '../ports/host-files.js';
import type { SecretSource } from '../ports/secret-source.js';
import { agentsProblem, credentialExists, credentialNameProblem, credentialSecret, type CredentialSummary } from './credential-record.js';
import { joinPath, parentOf } from './posix-path.js';
import { identitiesOf, parseServerConfig, storeOf, type IdentityMode, type ServerConfig, type StoreKind } from './server-config.js';
import { DATABASE_URL_KEY, parseEnvFile } from './server-env.js';
import { DIRECTORY_MODE, FILE_MODE } from './server-init.js';

export interface ServerCredentialsPorts {
  files: HostFiles;
  secrets: SecretSource;
  credentials: CredentialAdmin;
}

/** Where a setup is: its server.json and server.env (the connection string of a PostgreSQL store). */
export interface SetupPaths {
  configPath: string;
  envPath: string;
}

export interface CredentialAdded {
  credential: CredentialSummary;
  /** The administrative agents it names: a credential acts as orchestrator or recovery only when it says so. */
  administrative: string[];
  /** The file holding its secret (mode 0600): hand it to the credential's holder, who types it at `login`. */
  secret_file: string;
  identities: IdentityMode;
  store: StoreKind;
}

/**
 * `server credential add`: a credential bound to `agents`, with a fresh secret (its name, a dot,
 * 32 random bytes) written to `<setup root>/credentials/<name>.secret`, never printed. Only the
 * secret's verifier is stored. If the secret cannot be written, the credential is removed again:
 * no credential exists whose secret nobody holds.
 */
export async function addCredential(ports: ServerCredentialsPorts, paths: SetupPaths, input: { name: string; agents: string[]; now: string }): Promise<CredentialAdded> {
  const nameProblem = credentialNameProblem(input.name);
  if (nameProblem) throw new DomainError('INVALID_ARGUMENT', nameProblem, { field: 'name' });
  const agents = [...new Set(input.agents)];
  const problem = agentsProblem(agents);
  if (problem) throw new DomainError('INVALID_ARGUMENT', problem, { field: 'agents' });
  const config = await readConfig(ports.files, paths.configPath);
  return withCredentials(ports, paths, config, async ({ store, hasher }) => {
    const secret = credentialSecret(input.name, ports.secrets.secret());
    const credential = { id: ports.secrets.secret(), name: input.name, agents, verifier: await hasher.derive(secret), created_at: input.now };
    if (!(await store.add(credential))) throw credentialExists(input.name);
    const dir = joinPath(parentOf(paths.configPath), 'credentials');
    const secretFile = joinPath(dir, `${input.name}.secret`);
    try {
      await ports.files.makeDirectory(dir, DIRECTORY_MODE);
      await ports.files.writeFile(secretFile, `${secret}\n`, FILE_MODE);
    } catch (error) {
      await store.remove(input.name);
      throw error;
    }
    return {
      credential: { name: input.name, agents, created_at: input.now },
      administrative: agents.filter((agent) => ADMINISTRATORS.includes(agent)),
      secret_file: secretFile,
      identities: identitiesOf(config),
      store: storeOf(config),
    };
  });
}

/** `server credential list`: every credential's name, agents and creation time (no secret, no verifier). */
export async function listCredentials(ports: ServerCredentialsPorts, paths: SetupPaths): Promise<{ identities: IdentityMode; credentials: CredentialSummary[] }> {
  const config = await readConfig(ports.files, paths.configPath);
  return withCredentials(ports, paths, config, async ({ store }) => ({
    identities: identitiesOf(config),
    credentials: (await store.list()).map(({ name, agents, created_at }) => ({ name, agents, created_at })),
  }));
}

/** `server credential remove`: the credential goes, and every bearer it opened fails from the next request on. */
export async function removeCredential(ports: ServerCredentialsPorts, paths: SetupPaths, name: string): Promise<{ name: string; removed: boolean }> {
  const config = await readConfig(ports.files, paths.configPath);
  return withCredentials(ports, paths, config, async ({ store }) => ({ name, removed: await store.remove(name) }));
}

async function withCredentials<T>(ports: ServerCredentialsPorts, paths: SetupPaths, config: ServerConfig, work: (opened: OpenedCredentials) => Promise<T>): Promise<T> {
  const opened = await ports.credentials.open(config, storeOf(config) === 'postgresql' ? await databaseUrl(ports.files, paths.envPath) : undefined);
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

async function readConfig(files: HostFiles, path: string): Promise<ServerConfig> {
  const text = await files.read(path);
  if (text === null) throw new DomainError('STORAGE_ERROR', `No server configuration at ${path}: run \`taskdag server init\` or pass --config`, { cause: 'ENOENT', path });
  const parsed = parseServerConfig(text);
  if ('problem' in parsed) {
    throw new DomainError('STORAGE_ERROR', `${path} is not a valid server configuration: ${parsed.problem}`, { cause: 'EINVALID', path, problem: parsed.problem });
  }
  return parsed.config;
}

/** The connection string, from the env file only (never argv or the environment). */
async function databaseUrl(files: HostFiles, path: string): Promise<string | undefined> {
  const text = await files.read(path);
  if (text === null) throw new DomainError('STORAGE_ERROR', `No env file at ${path}: pass --env-file`, { cause: 'ENOENT', path });
  const parsed = parseEnvFile(text);
  if ('problem' in parsed) throw new DomainError('STORAGE_ERROR', `${path} is not a valid env file: ${parsed.problem}`, { cause: 'EINVALID', path, problem: parsed.problem });
  return parsed.entries.get(DATABASE_URL_KEY);
}
