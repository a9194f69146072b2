import { DomainError } from '../../domain/errors.js';
import type { CheckoutLocator } from '../ports/checkout.js';
import { normalizeOrigin } from './origin.js';

/** `--server <origin>` when given, else the origin the checkout is linked to. */
export function targetOrigin(server: string | undefined, checkouts: CheckoutLocator, command: string): string {
  if (server !== undefined) return normalizeOrigin(server);
  const backend = checkouts.find()?.backend;
  if (!backend) {
    throw new DomainError('MISSING_FIELD', `${command} needs a server: pass --server <origin>, or run it in a checkout linked with taskdag link`, { field: 'server' });
  }
  return normalizeOrigin(backend.url);
}
