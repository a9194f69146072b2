import { checkRequest } from '../../application/dispatcher.js';
import type { OperationRequest } from '../../application/operation.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { Checkout, CheckoutLocator } from '../../application/ports/checkout.js';
import { OperationRegistry } from '../../application/registry.js';
import { FsCheckoutLocator } from '../../adapters/fs-checkout-locator.js';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';
import { DomainError } from '../../domain/errors.js';
import { localDispatcher, taskdagHome } from '../local-services.js';

export interface Environment {
  cwd: string;
  env: Record<string, string | undefined>;
  project: string | undefined;
}

/**
 * The composition root of the command line: resolves the checkout to its project and chooses
 * where the request runs, in this one place. A linked checkout never touches local state (its
 * `init` included); a checkout-less directory has no project, except for `init`, which makes one
 * (its `.taskdag.json`) once the request is known to be valid.
 */
export async function runInCheckout(environment: Environment, request: Omit<OperationRequest, 'project'>): Promise<unknown> {
  const registry = new OperationRegistry(OPERATIONS);
  const { operation } = checkRequest(registry, request);
  const checkouts = new FsCheckoutLocator(environment.cwd, environment.project);
  const found = checkouts.find();
  if (found?.backend) throw unavailableRemote(found);
  const local = localDispatcher(taskdagHome(environment.env), environment.cwd);
  if (operation.scope === 'host') return local.dispatch({ ...request, project: found?.project_id ?? null });
  const checkout = found ?? (operation.name === 'init' ? createCheckout(checkouts) : missingCheckout(checkouts));
  const result = await local.dispatch({ ...request, project: checkout.project_id });
  return operation.name === 'init' ? withCheckout(result as Record<string, unknown>, checkout) : result;
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

function unavailableRemote(checkout: Checkout): DomainError {
  return new DomainError(
    'REMOTE_UNSUPPORTED_OPERATION',
    `This checkout is linked to ${checkout.backend!.url}, and this build of taskdag has no remote client; remove "backend" from .taskdag.json to work locally`,
    { backend: checkout.backend },
  );
}
