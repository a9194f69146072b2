import path from 'node:path';
import { checkRequest, LocalDispatcher, type DispatcherServices } from '../application/dispatcher.js';
import type { HostPorts, Operation, OperationRequest } from '../application/operation.js';
import { OPERATIONS } from '../application/operations/index.js';
import type { Checkout, CheckoutLocator } from '../application/ports/checkout.js';
import type { CommitSignals } from '../application/ports/commit-signals.js';
import type { PluginRuntime } from '../application/ports/plugin-runtime.js';
import type { ProjectStoreFactory } from '../application/ports/project-store.js';
import { OperationRegistry } from '../application/registry.js';
import { originOf, refuseRetiredMarker, requireBearer } from '../application/remote/linked.js';
import { insecureHttpWarnings } from '../application/remote/warnings.js';
import { refusedRemotely } from '../application/remote-offer.js';
import { AllowListedPluginRuntime } from '../application/server/allow-listed-plugin-runtime.js';
import type { PluginAllowList } from '../application/server/plugin-allow-list.js';
import { nodeFileSystem } from '../adapters/file-system.js';
import { stateDirectoryLock } from '../adapters/flock-project-lock.js';
import { FsCommitSignals } from '../adapters/fs-commit-signals.js';
import { FsCheckoutLocator } from '../adapters/fs-checkout-locator.js';
import { FsCheckoutRecord } from '../adapters/fs-checkout-record.js';
import { withCheckoutSeen } from '../application/board/checkouts.js';
import { FsProjectStoreFactory, type KeptStates, type StoreWarning, type StoreWarningSink } from '../adapters/fs-project-store.js';
import { KernelRandomIdSource } from '../adapters/kernel-random-id-source.js';
import { NodePluginRuntime } from '../adapters/node-plugin-runtime.js';
import { SystemClock } from '../adapters/system-clock.js';
import { DomainError } from '../domain/errors.js';
import type { ReviewRule } from '../domain/model.js';

/**
 * The one composition root. Every entrypoint (the command line, the server, the MCP server, the
 * library, the local board) builds what runs operations here, over its stores and with host
 * ports of its own: what reaches the machine (`system`) and a checkout's remote commands
 * (`client`) differ by entrypoint, everything else is the same object graph. Nothing here imports
 * an entrypoint, so no entrypoint's wiring leans on another's.
 */
export function composeServices(stores: ProjectStoreFactory, host: HostPorts, options: ComposeOptions = {}): DispatcherServices {
  return composeServicesOf(OPERATIONS, stores, host, options);
}

/**
 * The same over `operations` alone, for a program that serves only those (the command line's
 * graph reads, entrypoints/cli/graph-reads.ts): its bundle then holds none of the others.
 */
export function composeServicesOf(operations: readonly Operation[], stores: ProjectStoreFactory, host: HostPorts, options: ComposeOptions = {}): DispatcherServices {
  return {
    stores,
    clock: new SystemClock(),
    ids: new KernelRandomIdSource(),
    registry: new OperationRegistry(operations),
    host,
    plugins: pluginRuntimeOnFirstUse(options.allowedPlugins),
    review: options.review ?? 'any',
    ...(options.commits ? { commits: options.commits } : {}),
  };
}

export interface ComposeOptions {
  /** A server's: the plugins its operator lists, the only ones it runs (docs/plugins.md); a checkout runs the modules it installed. */
  allowedPlugins?: PluginAllowList;
  /** Who may accept a submission: a server's, from server.json; a checkout's comes with the checkout. */
  review?: ReviewRule;
  /** Word of commits for `next --wait`: a server's announcements; local files are watched. */
  commits?: CommitSignals;
}

/** `$TASKDAG_HOME`, else `~/.taskdag`. */
export function taskdagHome(env: Record<string, string | undefined>): string {
  if (env.TASKDAG_HOME && env.TASKDAG_HOME !== '') return path.resolve(env.TASKDAG_HOME);
  // node:os is loaded only here: a command given TASKDAG_HOME does not pay for it at start-up.
  return path.join((require('node:os') as typeof import('node:os')).homedir(), '.taskdag');
}

export interface FileStoreOptions {
  /** Keep each project's state in memory between calls (a long-lived process that owns the storage root). */
  hot?: boolean;
  /** Where store warnings go (docs/storage.md); by default one JSON line each on stderr, stdout keeping its one value. */
  warn?: StoreWarningSink;
  /** The states a long-lived process's transactions left, for its next ones to start from (KeptStates: `taskdag mcp`). */
  kept?: KeptStates;
}

/** The projects of the storage root `home`, in files. */
export function fileStores(home: string, options: FileStoreOptions = {}): FsProjectStoreFactory {
  return new FsProjectStoreFactory(home, stateDirectoryLock, nodeFileSystem, options.hot ?? false, options.warn ?? warnOnStderr, options.kept ?? null);
}

/** A host port an entrypoint does not serve: the operations that need it run from the command line. */
export function notServed(entrypoint: string): () => never {
  return () => {
    throw new DomainError('REMOTE_UNSUPPORTED_OPERATION', `This operation runs from the command line, not from ${entrypoint}`, { entrypoint });
  };
}

/** The host ports of an entrypoint that serves project operations only (the server, the local board). */
export function projectsOnly(cwd: string, entrypoint: string): HostPorts {
  const refuse = notServed(entrypoint);
  return { cwd, system: refuse, client: refuse };
}

/** Where a request comes from: its directory, its environment, and `--project` when given. */
export interface Environment {
  cwd: string;
  env: Record<string, string | undefined>;
  project: string | undefined;
}

/** An entrypoint's host ports for one request in a checkout: its storage root, the checkout locator, where it comes from. */
export type HostPortsFor = (home: string, checkouts: CheckoutLocator, environment: Environment) => HostPorts;

/**
 * Runs a request in the checkout of `environment` (the command line, the MCP server and the
 * library): resolves the checkout to its project and chooses where the request runs, in this one
 * place. A checkout carrying a retired protocol marker runs nothing but `link`
 * (REMOTE_CONFIG_OUTDATED, before any other I/O). A linked checkout sends every project operation
 * to its server with the stored bearer and never touches local state (no fallback); the machine's
 * own commands (link, login, push, server ...) run here. A checkout-less directory has no
 * project, except for `init`, which makes one (its `.taskdag.json`) once the request is known to
 * be valid.
 */
export function runInCheckout(environment: Environment, request: Omit<OperationRequest, 'project'>, hostPortsFor: HostPortsFor, kept?: KeptStates): Promise<unknown> {
  return runInCheckoutOf(OPERATIONS, environment, request, hostPortsFor, kept);
}

/** runInCheckout for a program that serves only `operations` (see composeServicesOf). `kept`: a long-lived caller's (KeptStates). */
export async function runInCheckoutOf(
  operations: readonly Operation[],
  environment: Environment,
  request: Omit<OperationRequest, 'project'>,
  hostPortsFor: HostPortsFor,
  kept?: KeptStates,
): Promise<unknown> {
  const checkouts = new FsCheckoutLocator(environment.cwd, environment.project);
  const home = taskdagHome(environment.env);
  const host = hostPortsFor(home, checkouts, environment);
  const stores = fileStores(home, kept ? { kept } : {});
  const services = composeServicesOf(operations, stores, host, { commits: new FsCommitSignals((project) => stores.locationOf(project)) });
  const checked = checkRequest(services.registry, request);
  const { operation } = checked;
  const found = checkouts.find();
  if (operation.name !== 'link') refuseRetiredMarker(found);
  if (found?.backend && operation.scope !== 'host') return runOnServer(found, operation, request, host);
  if (found?.backend && operation.scope === 'host' && !operation.inLinkedCheckout) throw unsupportedRemotely(operation.name, found);
  // Checked once, above: the local run takes the normalised arguments as they are. A local
  // project's review rule is its checkout's (a linked one's is its server's).
  const local = new LocalDispatcher({ ...services, review: found?.review ?? 'any' });
  if (operation.scope === 'host') {
    const result = await local.run(checked, { project: found?.project_id ?? null, agent: request.agent });
    if (operation.name === 'ui' && found) await noteLocalCheckout(home, found);
    return result;
  }
  const checkout = found ?? (operation.name === 'init' ? createCheckout(checkouts) : missingCheckout(checkouts));
  const result = await local.run(checked, { project: checkout.project_id, agent: request.agent, ...(request.signal ? { signal: request.signal } : {}), ...(request.printed ? { printed: true } : {}) });
  if (operation.name !== 'init') return result;
  await noteLocalCheckout(home, checkout);
  return withCheckout(result as Record<string, unknown>, checkout);
}

/**
 * A local `init` or `ui` notes its checkout's directory as one of its project's, for the local
 * board's catalog (docs/board.md). Written durably before the command answers; a record that
 * cannot be written is said on stderr and does not fail the command (it only guides the board).
 */
async function noteLocalCheckout(home: string, checkout: Checkout): Promise<void> {
  const record = new FsCheckoutRecord(home);
  try {
    const known = await record.load();
    const seen = withCheckoutSeen(known[checkout.project_id] ?? [], checkout.root, new SystemClock().now());
    if (seen.written) await record.save({ ...known, [checkout.project_id]: seen.entries });
  } catch (error) {
    process.stderr.write(`${JSON.stringify({ warning: { kind: 'checkout-not-noted', message: `The board's record of checkouts was not updated: ${(error as Error).message}` } })}\n`);
  }
}

/** A linked checkout's project operation, on its server (spec 4.5): the same JSON as local mode. */
async function runOnServer(checkout: Checkout, operation: Operation, request: Omit<OperationRequest, 'project'>, host: HostPorts): Promise<unknown> {
  const isInit = operation.name === 'init';
  const refused = refusedRemotely(operation, request.args);
  if (refused !== null) throw unsupportedRemotely(refused, checkout);
  const origin = originOf(checkout);
  const client = host.client();
  const server = client.remote.connect(origin, await requireBearer(client.sessions, origin), checkout.root);
  try {
    const result = await server.dispatch({ ...request, project: checkout.project_id });
    return isInit ? { ...withCheckout(result as Record<string, unknown>, checkout), ...insecureHttpWarnings('init', origin) } : result;
  } finally {
    server.close();
  }
}

function createCheckout(checkouts: CheckoutLocator): Checkout {
  return checkouts.create(new KernelRandomIdSource().projectId(checkouts.root()));
}

function missingCheckout(checkouts: CheckoutLocator): never {
  throw new DomainError('STORAGE_ERROR', `No taskdag project here (no .taskdag.json in ${checkouts.root()} or above): run taskdag init`, {
    cause: 'ENOENT',
    path: checkouts.root(),
  });
}

/** `init` in a checkout also says which checkout names the project. */
function withCheckout({ project_id, created, ...rest }: Record<string, unknown>, checkout: Checkout) {
  return { project_id, created, checkout: checkout.root, ...rest };
}

function unsupportedRemotely(operation: string, checkout: Checkout): DomainError {
  return new DomainError(
    'REMOTE_UNSUPPORTED_OPERATION',
    `${operation} is not offered in a checkout linked to a server (${checkout.backend!.url}): pull, remove "backend" from .taskdag.json and run it locally (docs/remote.md)`,
    { operation, backend: checkout.backend },
  );
}

/** The plugin runtime, made when a project with plugins first needs it; on a server, over its allow-list. */
function pluginRuntimeOnFirstUse(allowed: PluginAllowList | undefined): () => PluginRuntime {
  let runtime: PluginRuntime | null = null;
  const make = () => (allowed ? new AllowListedPluginRuntime(allowed, new NodePluginRuntime()) : new NodePluginRuntime());
  return () => (runtime ??= make());
}

/** Store warnings go to stderr, one JSON line each, so stdout keeps its one value. */
function warnOnStderr(warning: StoreWarning): void {
  process.stderr.write(`${JSON.stringify({ warning })}\n`);
}
