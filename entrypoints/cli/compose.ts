import { checkRequest, LocalDispatcher } from '../../application/dispatcher.js';
import type { Operation, OperationRequest } from '../../application/operation.js';
import type { Checkout, CheckoutLocator } from '../../application/ports/checkout.js';
import type { ClientPorts } from '../../application/remote/client-ports.js';
import { originOf, refuseRetiredMarker, requireBearer } from '../../application/remote/linked.js';
import { refusedRemotely } from '../../application/remote-offer.js';
import { insecureHttpWarnings } from '../../application/remote/warnings.js';
import { FsCheckoutLocator } from '../../adapters/fs-checkout-locator.js';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';
import { DomainError } from '../../domain/errors.js';
import { fileServices, taskdagHome } from '../local-services.js';
import { clientPorts } from './client-ports.js';

export interface Environment {
  cwd: string;
  env: Record<string, string | undefined>;
  project: string | undefined;
}

/**
 * The composition root of the command line: resolves the checkout to its project and chooses
 * where the request runs, in this one place. A checkout carrying a retired protocol marker runs
 * nothing but `link` (REMOTE_CONFIG_OUTDATED, before any other I/O). A linked checkout sends
 * every project operation to its server with the stored bearer and never touches local state
 * (no fallback); the machine's own commands (link, login, push, server ...) run here. A
 * checkout-less directory has no project, except for `init`, which makes one (its
 * `.taskdag.json`) once the request is known to be valid.
 */
export async function runInCheckout(environment: Environment, request: Omit<OperationRequest, 'project'>): Promise<unknown> {
  const checkouts = new FsCheckoutLocator(environment.cwd, environment.project);
  const home = taskdagHome(environment.env);
  let client: ClientPorts | null = null;
  const ports = () => (client ??= clientPorts(home, checkouts, environment.env));
  const services = fileServices(home, environment.cwd, { client: ports });
  const checked = checkRequest(services.registry, request);
  const { operation } = checked;
  const found = checkouts.find();
  if (operation.name !== 'link') refuseRetiredMarker(found);
  if (found?.backend && operation.scope !== 'host') return runOnServer(found, operation, request, ports());
  if (found?.backend && operation.scope === 'host' && !operation.inLinkedCheckout) throw unsupportedRemotely(operation.name, found);
  // Checked once, above: the local run takes the normalised arguments as they are.
  const local = new LocalDispatcher(services);
  if (operation.scope === 'host') return local.run(checked, { project: found?.project_id ?? null, agent: request.agent });
  const checkout = found ?? (operation.name === 'init' ? createCheckout(checkouts) : missingCheckout(checkouts));
  const result = await local.run(checked, { project: checkout.project_id, agent: request.agent });
  return operation.name === 'init' ? withCheckout(result as Record<string, unknown>, checkout) : result;
}

/** A linked checkout's project operation, on its server (spec 4.5): the same JSON as local mode. */
async function runOnServer(checkout: Checkout, operation: Operation, request: Omit<OperationRequest, 'project'>, client: ClientPorts): Promise<unknown> {
  const isInit = operation.name === 'init';
  const refused = refusedRemotely(operation, request.args);
  if (refused !== null) throw unsupportedRemotely(refused, checkout);
  const origin = originOf(checkout);
  const server = client.remote.connect(origin, await requireBearer(client.sessions, origin));
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

/** `init` on the command line also says which checkout names the project. */
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
