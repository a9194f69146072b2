import { timestampAfter, type Timestamp } from './clock.js';
import { DomainError } from './errors.js';
import { isTask, type AgentName, type Claim, type GraphNode } from './model.js';

/*
 * Leases and fencing tokens (beyond the spec; docs/decisions.md, "Leases and fencing tokens").
 * A claim taken with a lease ends at `expires_at` unless its holder renews it; only `recovery`
 * (or `orchestrator`) releases expired claims, by an explicit sweep (lease.ts), so nothing expires
 * behind anyone's back. Every claim carries a fencing token; a holder that presents the token of a
 * claim it no longer holds is refused with CLAIM_FENCED, so it cannot overwrite the next holder's work.
 */

/** The shortest lease: shorter ones would expire between an agent's own commands. */
export const MIN_LEASE_MS = 1_000;
/** The longest lease: a week. A claim meant to outlive that needs no lease. */
export const MAX_LEASE_MS = 7 * 24 * 60 * 60 * 1000;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
/** A lease duration as written: a whole number and a unit, `90s`, `15m`, `2h`, `500ms`. */
export const LEASE_DURATION_PATTERN = '^[0-9]{1,9}(ms|s|m|h)$';

/** The milliseconds of a lease written as `LEASE_DURATION_PATTERN`, within MIN_LEASE_MS..MAX_LEASE_MS. */
export function leaseMillis(duration: string): number {
  const match = new RegExp(LEASE_DURATION_PATTERN).exec(duration);
  const millis = match ? Number(duration.slice(0, -match[1]!.length)) * UNIT_MS[match[1] as keyof typeof UNIT_MS] : NaN;
  if (!(millis >= MIN_LEASE_MS && millis <= MAX_LEASE_MS)) {
    throw new DomainError('INVALID_ARGUMENT', `--lease takes a duration from 1s to 168h, such as 90s, 15m or 2h (got ${JSON.stringify(duration)})`, {
      field: 'lease',
      flag: '--lease',
      value: duration,
      min_ms: MIN_LEASE_MS,
      max_ms: MAX_LEASE_MS,
    });
  }
  return millis;
}

/** A claim by `by` at `at` with fencing token `token`, and a lease of `leaseMs` when one is asked for. */
export function newClaim(by: AgentName, at: Timestamp, token: number, leaseMs: number | undefined): Claim {
  return leaseMs === undefined ? { by, at, token } : { by, at, token, lease_ms: leaseMs, expires_at: timestampAfter(at, leaseMs) };
}

/** `claim` with its lease running for `leaseMs` from `now`. */
export function renewedClaim(claim: Claim, now: Timestamp, leaseMs: number): Claim {
  return { ...claim, lease_ms: leaseMs, expires_at: timestampAfter(now, leaseMs) };
}

/**
 * Refuses a holder that names a claim it no longer holds: `token` (when the caller gives one)
 * must be the fencing token of the task's current claim. A claim swept, released, submitted or
 * taken again since carries another token, or none: the late caller is told what holds the task
 * now, and nothing is written.
 */
export function assertFence(node: GraphNode, action: 'submit' | 'release' | 'renew', token: number | undefined): void {
  if (token === undefined) return;
  const claim = isTask(node) ? node.claim : null;
  if (claim !== null && claim.token === token) return;
  const now = claim === null ? 'no claim holds it now' : `it is now held by ${claim.by} under token ${claim.token ?? 'none'}`;
  throw new DomainError('CLAIM_FENCED', `Claim token ${token} no longer holds ${node.id} (${now}): its lease was swept, or it was released or taken again; take it again before you ${action}`, {
    id: node.id,
    action,
    token,
    status: node.status,
    held_by: claim?.by ?? null,
    held_token: claim?.token ?? null,
  });
}
