import { DomainError } from '../../domain/errors.js';
import type { Checkout } from '../ports/checkout.js';
import type { SessionProfile } from '../ports/session-profile.js';
import { bearerProblem } from './bearer.js';
import { normalizeOrigin } from './origin.js';

/** The backend type `link` records: the HTTP protocol of remote v1, over http: or https:. */
export const BACKEND_TYPE = 'http';

/** Spec 9.3: a retired protocol marker stops everything but `link`, before any auth or state I/O. */
export function refuseRetiredMarker(checkout: Checkout | null): void {
  if (!checkout?.retired) return;
  const origin = checkout.backend?.url ?? null;
  throw new DomainError(
    'REMOTE_CONFIG_OUTDATED',
    `${checkout.root}/.taskdag.json carries ${checkout.retired.field}, a marker of a retired remote protocol: run taskdag link ${origin ?? '<origin>'} to rewrite it for remote v1`,
    { field: checkout.retired.field, origin, checkout: checkout.root },
  );
}

/** The origin a linked checkout's commands go to. */
export function originOf(checkout: Checkout): string {
  return normalizeOrigin(checkout.backend!.url);
}

/** The checkout's project on its server, or why a remote command cannot run here. */
export function requireLinked(checkout: Checkout | null, command: string): Checkout & { backend: NonNullable<Checkout['backend']> } {
  if (!checkout?.backend) {
    throw new DomainError('MISSING_FIELD', `${command} needs a checkout linked to a server: run taskdag link <origin> first`, {
      field: 'backend',
      checkout: checkout?.root ?? null,
    });
  }
  return checkout as Checkout & { backend: NonNullable<Checkout['backend']> };
}

/**
 * The stored bearer for `origin`; AUTH_INVALID (run login) when there is none, or when the one
 * stored has not the form of a bearer (a profile edited by hand or written by an older client):
 * sending it would fail inside the HTTP library, so no request is made.
 */
export async function requireBearer(sessions: SessionProfile, origin: string): Promise<string> {
  const session = await sessions.get(origin);
  if (session === null) {
    throw new DomainError('AUTH_INVALID', `Not logged in to ${origin}: run taskdag login`, { origin, profile: sessions.location });
  }
  const problem = bearerProblem(session.bearer);
  if (problem !== null) {
    throw new DomainError('AUTH_INVALID', `The bearer stored for ${origin} ${problem}: run taskdag login to replace it`, {
      origin,
      profile: sessions.location,
      problem,
    });
  }
  return session.bearer;
}
