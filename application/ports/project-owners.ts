/**
 * Which server process owns a project's writes (PostgreSQL scale-out, docs/scaling.md): one at a
 * time, by a lease in the database with a fencing token. A process that does not own a project
 * hands its mutations to the owner, and its reads too once it knows the owner's address.
 */
export interface ProjectOwners {
  /**
   * Before serving a mutation another process forwarded here: takes the project if no live
   * process owns it (the forwarder judged this process the one to own it).
   */
  takeIfFree(project: string): Promise<void>;
  /**
   * The address of the project's owner after `unreachable` (the address a forward could not
   * reach, or null) failed: the project is taken over when its owner is gone (null: this process
   * owns it now, serve the request here); the same address again while the owner still holds
   * its lease.
   */
  ownerAfter(project: string, unreachable: string | null): Promise<string | null>;
  /**
   * The address of the project's owner as this process last learnt it, its own when it owns the
   * project; undefined when it has not learnt it. Asks nothing of the database: it may be out of
   * date (the owner died since), so it is a hint for clients, never a decision.
   */
  knownOwner(project: string): string | undefined;
  /**
   * The address of the project's owner as this process last learnt it, when that is another
   * process; undefined when this process owns it or has not learnt it. A hint, as knownOwner.
   */
  elsewhere(project: string): string | undefined;
  /**
   * `address`, which this process had learnt as the project's owner, did not answer: forgets it
   * (if it is still what this process knows), asking nothing of the database. The project's next
   * mutation asks who owns it.
   */
  unreachable(project: string, address: string): void;
}

/**
 * A mutation refused before anything was committed, because another process owns the project:
 * `owner` is the address it is reached on (null: not known here, ask ProjectOwners). The
 * request is to be served there.
 */
export class OwnedElsewhere extends Error {
  override readonly name = 'OwnedElsewhere';

  constructor(
    readonly project: string,
    readonly owner: string | null,
  ) {
    super(`Project ${project} is owned by another server process`);
  }
}

/** Recognised by name as well as by class: the server's runtime is a bundle with its own copy of the class. */
export function isOwnedElsewhere(value: unknown): value is OwnedElsewhere {
  return value instanceof OwnedElsewhere || (value instanceof Error && value.name === 'OwnedElsewhere' && typeof (value as OwnedElsewhere).project === 'string');
}
