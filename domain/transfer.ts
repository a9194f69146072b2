import { nodeIds } from './node-map.js';
import type { Timestamp } from './clock.js';
import { DomainError } from './errors.js';
import type { AgentName, State } from './model.js';

export type TransferDirection = 'push' | 'pull';

/** What the destination of a transfer holds: nothing yet, or a state. */
export type Destination = State | null;

export interface Transfer {
  direction: TransferDirection;
  /** The complete state of the source side. */
  incoming: State;
  /** The destination's revision at the last confirmed transfer; null without a baseline. */
  expected: number | null;
  force: boolean;
  at: Timestamp;
  by: AgentName;
}

/** A state as `init` left it: nothing was ever committed to it. */
export function isPristine(state: State): boolean {
  return (
    state.revision === 0 &&
    state.log.length === 0 &&
    state.edges.length === 0 &&
    nodeIds(state).length === 0 &&
    Object.keys(state.initiatives).length === 0
  );
}

/**
 * Spec 4.5 rules 2-4: the state that replaces the destination whole, or STATE_REVISION_CONFLICT
 * naming both revisions when the destination moved since the last confirmed transfer (or, without
 * a baseline, is neither absent nor pristine). `--force` skips the check, and the winner's log
 * gains `transfer.push` / `transfer.pull` with the replaced revision. The new revision continues
 * past both sides, so no revision is ever reused for different content.
 */
export function transferredState(destination: Destination, transfer: Transfer): State {
  if (!transfer.force) checkBaseline(destination, transfer);
  const replaced = destination?.revision ?? 0;
  const revision = Math.max(transfer.incoming.revision, replaced) + 1;
  const fence_generation = Math.max(transfer.incoming.fence_generation, destination?.fence_generation ?? 0);
  const event = { revision, at: transfer.at, by: transfer.by, op: `transfer.${transfer.direction}`, node: null, replaced_revision: replaced };
  return { ...transfer.incoming, revision, fence_generation, log: transfer.force ? [...transfer.incoming.log, event] : transfer.incoming.log };
}

function checkBaseline(destination: Destination, transfer: Transfer): void {
  const side = transfer.direction === 'push' ? 'the server' : 'this machine';
  if (transfer.expected === null) {
    if (destination === null || isPristine(destination)) return;
    throw conflict(
      transfer,
      destination.revision,
      `${transfer.direction} refused: there is no confirmed transfer between this checkout and the server, and the project on ${side} is not pristine (revision ${destination.revision}); nothing changed on either side. Use --force to replace it whole`,
    );
  }
  const current = destination?.revision ?? 0;
  if (current === transfer.expected) return;
  throw conflict(
    transfer,
    current,
    `${transfer.direction} refused: the project on ${side} is at revision ${current}, but the last confirmed transfer left it at revision ${transfer.expected}; nothing changed on either side. ${
      transfer.direction === 'push' ? 'Pull first (your local work would be replaced) or push --force' : 'Push first or pull --force'
    } to replace it whole`,
  );
}

function conflict(transfer: Transfer, current: number, message: string): DomainError {
  return new DomainError('STATE_REVISION_CONFLICT', message, {
    direction: transfer.direction,
    destination_revision: current,
    expected_revision: transfer.expected,
    source_revision: transfer.incoming.revision,
  });
}
