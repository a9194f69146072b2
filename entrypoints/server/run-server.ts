import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type Koa from 'koa';
import { DomainError } from '../../domain/errors.js';
import { AuthService } from '../../application/server/auth-service.js';
import type { AuthStore } from '../../application/ports/auth-store.js';
import { advertisedUrl, identitiesOf, parseServerConfig, reviewOf, type ServerConfig } from '../../application/server/server-config.js';
import { PASSWORD_GENERATION_KEY, PASSWORD_KEY, passwordGeneration, secretProblem } from '../../application/server/server-env.js';
import { readServerSettings, type ServerSettings } from '../../application/server/server-settings.js';
import { AnnouncedCommits } from '../../adapters/server/announced-commits.js';
import { buildHttpApp } from '../../adapters/server/http-app.js';
import { listen } from '../../adapters/server/http-listener.js';
import { PathRedactor } from '../../adapters/server/path-redactor.js';
import { ScryptPasswordHasher } from '../../adapters/server/scrypt-password-hasher.js';
import { acquireServiceLock } from '../../adapters/server/service-lock.js';
import { ShutdownHooks } from '../../adapters/server/shutdown-hooks.js';
import { TweetnaclBearerTokens } from '../../adapters/server/tweetnacl-bearer-tokens.js';
import { SystemClock } from '../../adapters/system-clock.js';
import { boardFiles } from '../../adapters/server/board-files.js';
import { boardRoutes } from '../../adapters/server/board-routes.js';
import { projectRoutes, type ProjectRoutesOptions } from '../../adapters/server/project-routes.js';
import { DEFAULT_SSE_OPTIONS, SseHub, type RevisionEvent } from '../../adapters/server/sse-hub.js';
import { transferRoutes } from '../../adapters/server/transfer-routes.js';
import { OwnerForwarding } from '../../adapters/server/owner-forwarding.js';
import { KnownProjects } from '../../adapters/server/known-projects.js';
import { GroupCommitDispatcher, type CommitListener } from '../../application/group-commit.js';
import type { DispatcherServices } from '../../application/dispatcher.js';
import { composeServices, projectsOnly } from '../compose.js';
import { PluginAllowList } from '../../application/server/plugin-allow-list.js';
import { sweepEveryProject } from '../../application/server/lease-sweeps.js';
import { CheckoutsSeen } from '../../application/board/checkouts.js';
import { FsCheckoutRecord } from '../../adapters/fs-checkout-record.js';
import { openStoreBackend, type StoreBackend } from './store-backend.js';

/** `server doctor` of a PostgreSQL server probes its database with the server's own code (entrypoints/host/machine-ports.ts). */
export { PgDatabaseProbe } from '../../adapters/postgres/pg-database-probe.js';
/** ...and compares the host's password with the verifier it holds, with the server's own hasher. */
export { ScryptPasswordHasher } from '../../adapters/server/scrypt-password-hasher.js';

/** The operator's `server credential` commands reach a setup's credentials with the server's own code. */
export { openCredentials } from './open-credentials.js';

// `taskdag ui` runs the local board in this same runtime bundle.
export { serveBoard } from './run-board.js';

export interface RunServerOptions {
  configPath: string;
  /** The process environment: the password is read from it and then removed from it. */
  env: Record<string, string | undefined>;
}

/**
 * `server run <config>` (spec 4.6, 5.3): refuses to listen without its password, its service
 * lock and a durable auth file; prints one JSON line `{ok, host, port}` once listening; on
 * SIGINT or SIGTERM stops accepting, ends live streams, drains in-flight requests within the
 * drain bound, releases the lock and resolves (exit 0). A second signal cuts the drain short.
 * This module is its own bundle (dist/taskdag-server.js): nothing of the CLI's synchronous I/O
 * helpers runs on its event loop; its output goes through process.stdout and process.stderr.
 */
export async function runServer(options: RunServerOptions): Promise<void> {
  const config = readConfig(options.configPath);
  const password = takePassword(options.env);
  const settings = readSettings(options.env);
  for (const dir of [config.dataRoot, config.stateHome]) requireDirectory(dir);

  const lock = acquireServiceLock(config.stateHome);
  try {
    const backend = await openStoreBackend(config, options.env, settings, log);
    try {
      await serve(backend, config, settings, password, options.configPath);
    } finally {
      await backend.close();
    }
  } finally {
    lock.release();
  }
}

/** With its store open: auth, the live-event hub fed by every commit, then the HTTP app until a signal. */
async function serve(backend: StoreBackend, config: ServerConfig, settings: ServerSettings, password: ServerPassword, configPath: string): Promise<void> {
  const auth = await openAuth(backend.auth, password, config);
  const checkouts = await CheckoutsSeen.open(new FsCheckoutRecord(config.stateHome), new SystemClock(), log);
  const shutdown = new ShutdownHooks();
  // Other processes' commits of a project are heard only while a live stream or a waiting call of it here needs them (docs/scaling.md).
  const hearing = new Map<string, Set<'streams' | 'waits'>>();
  const needs = (what: 'streams' | 'waits') => (project: string, watched: boolean) => {
    const needed = hearing.get(project) ?? new Set();
    if (watched) needed.add(what);
    else needed.delete(what);
    if (needed.size > 0) hearing.set(project, needed);
    else hearing.delete(project);
    backend.hear(project, needed.size > 0);
  };
  const hub = new SseHub({ ...DEFAULT_SSE_OPTIONS, watched: needs('streams') });
  shutdown.add(() => hub.close());
  const commits = new AnnouncedCommits(needs('waits'));
  shutdown.add(() => commits.endAll());
  const announce = (project: string, committed: RevisionEvent) => {
    hub.publish(project, committed);
    commits.announce(project);
  };
  // Following before listening: no commit of another process falls between the two.
  await backend.follow(({ project, ...committed }) => announce(project, committed));
  const ownership = ownershipOf(backend, settings, shutdown);
  const setupRoot = path.dirname(configPath);
  const redactor = new PathRedactor({ dataRoot: config.dataRoot, stateHome: config.stateHome, uiRoot: config.uiRoot, setupRoot });
  const app = buildHttpApp({
    auth,
    maxBodyBytes: settings.maxBodyBytes,
    shutdown,
    redactor,
    log,
    authenticated: () => {
      const allowedPlugins = new PluginAllowList(config.plugins);
      const services = composeServices(backend.stores, projectsOnly(setupRoot, 'a server'), { allowedPlugins, review: reviewOf(config), commits });
      return projectRouters(services, allowedPlugins, settings, shutdown, hub, announce, config.leaseSweepMs, checkouts, ownership);
    },
    board: boardFiles(config.uiRoot),
  });
  // Registered as a possible owner of projects once the address the other processes reach it on is known.
  await serveUntilSignalled(app, config, settings, shutdown, (listening) => backend.owners?.register(advertisedUrl(config, listening)));
  await checkouts.settled();
}

/**
 * With PostgreSQL, each project's mutations are served by its owning process (docs/scaling.md,
 * "Failover"): the others forward them, waiting at most a lease for an answer per try and giving
 * up after three leases (an owner that is gone has been taken over well before).
 */
function ownershipOf(backend: StoreBackend, settings: ServerSettings, shutdown: ShutdownHooks): ProjectRoutesOptions['ownership'] {
  if (!backend.owners) return undefined;
  const forwarding = new OwnerForwarding(backend.owners, settings.ownerLeaseMs, 3 * settings.ownerLeaseMs);
  shutdown.add(() => forwarding.close());
  return { owners: backend.owners, forwarding };
}

/**
 * The projects of the store, served: mutations through the group-commit dispatcher and whole
 * transfers, both feeding the live events (with PostgreSQL, so do the commits of every other
 * process on the database); reads straight from the store.
 */
function projectRouters(
  services: DispatcherServices,
  allowed: PluginAllowList,
  settings: ServerSettings,
  shutdown: ShutdownHooks,
  hub: SseHub,
  announce: CommitListener,
  leaseSweepMs: number | undefined,
  checkouts: CheckoutsSeen,
  ownership: ProjectRoutesOptions['ownership'],
): Router[] {
  const dispatcher = new GroupCommitDispatcher(services, announce);
  const { registry, stores, clock } = services;
  if (leaseSweepMs !== undefined) scheduleLeaseSweeps(dispatcher, stores, leaseSweepMs, shutdown);
  const projects = new KnownProjects(stores);
  // The server's own record of the checkouts seen is the one in memory: the file is its copy.
  const reads = { stores, clock, hub, shutdown, projects, checkouts: async () => checkouts.all() };
  return [
    boardRoutes(reads),
    projectRoutes({ ...reads, dispatcher, registry, maxBodyBytes: settings.maxBodyBytes, notes: checkouts, ownership }),
    transferRoutes({ stores, clock, plugins: services.plugins, allowed, maxBodyBytes: settings.maxBodyBytes, announce, projects, notes: checkouts }),
  ];
}

/**
 * Sweeps expired leases in every project every `everyMs` (server.json `leaseSweepMs`), one pass
 * at a time (the next is scheduled when one ends), until the server stops.
 */
function scheduleLeaseSweeps(dispatcher: GroupCommitDispatcher, stores: DispatcherServices['stores'], everyMs: number, shutdown: ShutdownHooks): void {
  let timer: NodeJS.Timeout;
  const pass = async () => {
    for (const outcome of await sweepEveryProject(dispatcher, stores).catch((error: unknown) => [{ project: '*', error: String((error as { code?: string }).code ?? 'CLI_INTERNAL_ERROR') }])) {
      if ('error' in outcome) log(`taskdag server: lease sweep of project ${outcome.project} failed (${outcome.error})`);
      else if (outcome.released > 0) log(`taskdag server: lease sweep released ${outcome.released} expired claim(s) in project ${outcome.project}`);
    }
    if (!shutdown.stopping) timer = setTimeout(() => void pass(), everyMs);
  };
  timer = setTimeout(() => void pass(), everyMs);
  shutdown.add(() => clearTimeout(timer));
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The auth file, created or rotated durably before this resolves (spec 5.3, 5.5). */
async function openAuth(store: AuthStore, password: ServerPassword, config: ServerConfig): Promise<AuthService> {
  const identities = identitiesOf(config);
  const { service, startup } = await AuthService.open(
    { store, hasher: new ScryptPasswordHasher(), tokens: new TweetnaclBearerTokens(), clock: new SystemClock(), identities },
    password.secret,
    password.generation,
  );
  if (startup === 'rotated') log('taskdag server: the password changed; every earlier bearer is revoked and clients must log in again');
  if (identities === 'bound') log('taskdag server: identities are bound: only credentials log in (server credential add), each as the agents it names');
  return service;
}

/** Listens, prints the ready line, and on the first SIGINT or SIGTERM stops gracefully (a second cuts the drain short). */
async function serveUntilSignalled(
  app: Koa,
  config: ServerConfig,
  settings: ServerSettings,
  shutdown: ShutdownHooks,
  listening: (address: { host: string; port: number }) => Promise<void> | undefined,
): Promise<void> {
  // Watched before the ready line goes out: whoever reads it may signal at once.
  const first = nextSignal();
  const server = await listen(app, config, settings, shutdown).catch((error: unknown) => {
    first.cancel();
    throw error;
  });
  try {
    await listening(server);
  } catch (error) {
    first.cancel();
    await server.stop(0);
    throw error;
  }
  process.stdout.write(`${JSON.stringify({ ok: true, host: server.host, port: server.port })}\n`);
  const signal = await first.signal;
  const stopWatching = watchSignals(() => server.abort());
  // The listener is closed by the time stop() returns its promise; the log line says so truthfully.
  const stopping = server.stop(settings.drainMs).finally(stopWatching);
  log(`taskdag server: ${signal} received, no longer accepting; draining in-flight requests (at most ${settings.drainMs} ms)`);
  const { drained } = await stopping;
  log(drained ? 'taskdag server: stopped' : 'taskdag server: stopped; requests still running at the drain bound were cut off');
}

function readConfig(configPath: string): ServerConfig {
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw new DomainError('STORAGE_ERROR', `Cannot read the server configuration ${configPath} (${cause}): run \`taskdag server init\``, { cause, path: configPath });
  }
  const parsed = parseServerConfig(text);
  if ('problem' in parsed) {
    throw new DomainError('STORAGE_ERROR', `${configPath} is not a valid server configuration: ${parsed.problem}`, { cause: 'EINVALID', path: configPath, problem: parsed.problem });
  }
  return parsed.config;
}

/** The password and its generation (server-env.ts), as the environment gave them. */
interface ServerPassword {
  secret: string;
  generation: number;
}

/**
 * Spec 5.3: the password comes from the environment only, and leaves it at once (no child
 * inherits it); its generation comes with it.
 */
function takePassword(env: Record<string, string | undefined>): ServerPassword {
  const password = env[PASSWORD_KEY];
  delete env[PASSWORD_KEY];
  if (password === undefined || password === '') {
    throw new DomainError('MISSING_FIELD', `${PASSWORD_KEY} is not set: start the server through its unit (EnvironmentFile=) or source server.env first (docs/operating.md)`, {
      field: PASSWORD_KEY,
      source: 'environment',
    });
  }
  const problem = secretProblem(password);
  if (problem) throw new DomainError('INVALID_ARGUMENT', `${problem}`, { field: PASSWORD_KEY });
  const generation = passwordGeneration(env);
  if ('problem' in generation) throw new DomainError('INVALID_ARGUMENT', `${generation.problem}: correct it in server.env`, { field: PASSWORD_GENERATION_KEY });
  return { secret: password, generation: generation.generation };
}

function readSettings(env: Record<string, string | undefined>): ServerSettings {
  const read = readServerSettings(env);
  if ('problems' in read) {
    throw new DomainError('INVALID_ARGUMENT', read.problems.map((problem) => problem.problem).join('; '), { problems: read.problems });
  }
  return read.settings;
}

/** The server never creates its storage: the preflight names what is missing (systemd needs them to exist too). */
function requireDirectory(dir: string): void {
  if (existsSync(dir) && statSync(dir).isDirectory()) return;
  throw new DomainError('STORAGE_ERROR', `${dir} is not a directory: create it (mkdir -p -m 700) or rerun \`taskdag server init\`, then \`taskdag server doctor\``, {
    cause: 'ENOENT',
    path: dir,
  });
}

/** Calls `handler` on SIGINT or SIGTERM until the returned function is called. */
function watchSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** The next SIGINT or SIGTERM; `cancel` stops watching without one. */
function nextSignal(): { signal: Promise<NodeJS.Signals>; cancel: () => void } {
  let cancel = () => {};
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    cancel = watchSignals((received) => {
      cancel();
      resolve(received);
    });
  });
  return { signal, cancel };
}
