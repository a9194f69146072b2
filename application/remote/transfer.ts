import { plainGraph } from '../../domain/node-map.js';
import { DomainError } from '../../domain/errors.js';
import type { AgentName, State } from '../../domain/model.js';
import { locatedHere, pluginNotAllowed, withoutModules } from '../../domain/plugins.js';
import { transferredState, type TransferDirection } from '../../domain/transfer.js';
import { integer, nullable, object, oneOf, string, boolean, type Static, lazily } from '../contract/schema.js';
import type { HostServices } from '../operation.js';
import type { StoredState } from '../ports/project-store.js';
import type { TransferBaseline } from '../ports/transfer-baselines.js';
import type { TransferredState } from '../ports/remote-server.js';
import type { PluginRuntimeSource } from '../ports/plugin-runtime.js';
import { enforcePolicy, questionAbout } from '../policy.js';
import { originOf, requireBearer, requireLinked } from './linked.js';

export const transferResult = lazily(() => object({
  project_id: string(),
  origin: string(),
  direction: oneOf(['push', 'pull'] as const),
  transferred: boolean('False when the source did not change since the last confirmed transfer (nothing was sent)'),
  forced: boolean(),
  source_revision: integer('The revision of the side that was copied'),
  destination_revision: integer('The revision of the destination after the transfer'),
  replaced_revision: nullable(integer('The destination revision that was replaced; null when nothing was')),
  baseline: object({
    local_revision: integer('The local revision of the confirmed transfer'),
    remote_revision: integer('The server revision of the confirmed transfer'),
  }),
}));
export type TransferResult = Static<ReturnType<typeof transferResult>>;

/**
 * The destination as a transfer sees it: null when absent; a state that does not load is only
 * ever replaced by `--force` (the store keeps a corrupt-recovery snapshot of its files), and
 * counts as the revision its files still show.
 */
export function destinationOf(current: StoredState, force: boolean): State | null {
  if (current.kind === 'absent') return null;
  if (current.kind === 'valid') return current.state;
  if (!force) throw current.error;
  return { version: 1, ...current.reached, initiatives: {}, nodes: {}, edges: [], log: [] };
}

/**
 * The destination's policy plugins decide on a transfer that replaces it (a destination that
 * does not load has none to ask); the incoming plugin table then replaces theirs.
 */
export function transferAllowed(
  plugins: PluginRuntimeSource,
  current: StoredState,
  direction: TransferDirection,
  args: Record<string, unknown>,
  agent: AgentName,
  incoming: State,
): void {
  if (current.kind === 'valid') enforcePolicy(plugins, current.plugins ?? {}, () => questionAbout(direction, args, agent, [], incoming));
}

/** What a plugin that cannot answer fails with (as opposed to a refusal, PLUGIN_REFUSED). */
const CANNOT_ANSWER = new Set(['PLUGIN_RUNTIME_UNAVAILABLE', 'PLUGIN_API_INCOMPATIBLE', 'PLUGIN_DATA_INVALID', 'PLUGIN_NOT_ALLOWED']);

/**
 * A server's project's plugins decide on a push that replaces them, one by one; only a refusal
 * refuses. A plugin that cannot answer (its module broken or slow, its data rejected, a name the
 * server does not run) has no say: a server has no `plugin remove`, the push is its way out, so
 * no table can shut a project for good.
 */
export function replacementAllowed(
  plugins: PluginRuntimeSource,
  current: StoredState,
  args: Record<string, unknown>,
  agent: AgentName,
  incoming: State,
): void {
  if (current.kind !== 'valid') return;
  for (const [name, plugin] of Object.entries(current.plugins ?? {})) {
    try {
      enforcePolicy(plugins, { [name]: plugin }, () => questionAbout('push', args, agent, [], incoming));
    } catch (error) {
      if (!(error instanceof DomainError && CANNOT_ANSWER.has(error.code))) throw error;
    }
  }
}

/** Spec 4.5 `push`: the complete local state replaces the server's, compare-and-set on the server's revision. */
export async function push(services: HostServices, force: boolean, agent: AgentName): Promise<TransferResult> {
  const { project, origin, bearer, baseline, checkout } = await transferContext(services, 'push');
  // Copied whole within the call: the node map a store hands out may be read lazily, while the call runs.
  const local = await services.stores.open(project).readState((state, plugins) => ({ state: plainGraph(state), plugins: plugins() }));
  if (baseline && !force && local.state.revision === baseline.local_revision) return unchanged('push', project, origin, baseline);
  const server = services.client().remote.connect(origin, bearer, checkout);
  try {
    const answer = await server.upload(project, { state: local.state, plugins: withoutModules(local.plugins), expected_revision: baseline?.remote_revision ?? null, force, agent });
    const confirmed = await confirm(services, origin, project, local.state.revision, answer.revision);
    return done('push', project, origin, force, local.state.revision, answer.revision, answer.replaced_revision, confirmed);
  } finally {
    server.close();
  }
}

/** Spec 4.5 `pull`: the server's complete state replaces the local one, compare-and-set on the local revision. */
export async function pull(services: HostServices, force: boolean, agent: AgentName): Promise<TransferResult> {
  const { project, origin, bearer, baseline, checkout } = await transferContext(services, 'pull');
  const server = services.client().remote.connect(origin, bearer, checkout);
  let remote: TransferredState;
  try {
    remote = await server.download(project);
  } finally {
    server.close();
  }
  if (baseline && !force && remote.state.revision === baseline.remote_revision) return unchanged('pull', project, origin, baseline);
  const expected = baseline?.local_revision ?? null;
  const { written, replaced } = await services.stores.open(project).rewrite((current) => {
    const destination = destinationOf(current, force);
    const state = transferredState(destination, { direction: 'pull', incoming: remote.state, expected, force, at: services.clock.now(), by: agent });
    const plugins = locatedHere(remote.plugins, (name) => installedModule(current, name));
    transferAllowed(services.plugins, current, 'pull', { force }, agent, state);
    return { result: { written: state.revision, replaced: current.kind === 'absent' ? null : (destination?.revision ?? 0) }, state, plugins };
  });
  const confirmed = await confirm(services, origin, project, written, remote.state.revision);
  return done('pull', project, origin, force, remote.state.revision, written, replaced, confirmed);
}

/**
 * The module a pulled plugin runs from: the one this checkout installed under that name (`plugin
 * add`), never a path that came with the transfer; PLUGIN_NOT_ALLOWED when it has none.
 */
function installedModule(current: StoredState, name: string): string {
  const installed = current.kind === 'valid' ? current.plugins ?? {} : {};
  if (Object.hasOwn(installed, name)) return installed[name]!.module;
  throw pluginNotAllowed(name, 'This checkout', `a pulled plugin runs only from a module installed here: \`plugin add <module>\` it (while unlinked), then \`pull --force\``, {
    installed: Object.keys(installed).sort(),
  });
}

async function transferContext(services: HostServices, command: TransferDirection) {
  const { checkouts, sessions, baselines } = services.client();
  const checkout = requireLinked(checkouts.find(), command);
  const origin = originOf(checkout);
  const bearer = await requireBearer(sessions, origin);
  if (services.project !== checkout.project_id) throw new DomainError('INVALID_ARGUMENT', `${command} runs on the linked checkout's project`, { project: services.project });
  return { project: checkout.project_id, checkout: checkout.root, origin, bearer, baseline: await baselines.get(origin, checkout.project_id) };
}

async function confirm(services: HostServices, origin: string, project: string, local: number, remote: number): Promise<TransferBaseline> {
  const baseline = { local_revision: local, remote_revision: remote, confirmed_at: services.clock.now() };
  await services.client().baselines.put(origin, project, baseline);
  return baseline;
}

function unchanged(direction: TransferDirection, project: string, origin: string, baseline: TransferBaseline): TransferResult {
  const [source, destination] = direction === 'push' ? [baseline.local_revision, baseline.remote_revision] : [baseline.remote_revision, baseline.local_revision];
  return done(direction, project, origin, false, source, destination, null, baseline, false);
}

function done(
  direction: TransferDirection,
  project: string,
  origin: string,
  forced: boolean,
  source: number,
  destination: number,
  replaced: number | null,
  baseline: TransferBaseline,
  transferred = true,
): TransferResult {
  return {
    project_id: project,
    origin,
    direction,
    transferred,
    forced,
    source_revision: source,
    destination_revision: destination,
    replaced_revision: replaced,
    baseline: { local_revision: baseline.local_revision, remote_revision: baseline.remote_revision },
  };
}
