import type { ReviewRule } from '../../domain/model.js';

/** The remote backend a linked checkout points at (spec 2.6). */
export interface Backend {
  type: string;
  url: string;
}

/**
 * A field of a pre-v1 remote client (docs/remote.md): `protocol_version` in `backend` or at the
 * top level of `.taskdag.json`. Such a checkout fails with REMOTE_CONFIG_OUTDATED until
 * `link <configured-origin>` rewrites it.
 */
export interface RetiredMarker {
  /** Where it sits: `backend.protocol_version` or `protocol_version`. */
  field: string;
  value: unknown;
}

/** What `.taskdag.json` says about the checkout it sits in. */
export interface Checkout {
  root: string;
  project_id: string;
  backend: Backend | null;
  retired: RetiredMarker | null;
  /** `review` in `.taskdag.json`: who may accept a submission in the local project (docs/agents.md); absent is `any`. */
  review?: ReviewRule;
}

export interface CheckoutLocator {
  /** The checkout the command runs in, or null when there is none yet. */
  find(): Checkout | null;
  /**
   * Writes `.taskdag.json` for a new project in the selected project root; if another process
   * created one first, returns that one instead.
   */
  create(projectId: string): Checkout;
  /** The directory a new checkout would be created in. */
  root(): string;
  /**
   * Rewrites the checkout's `.taskdag.json` atomically with this project id and backend (null
   * removes it), dropping any retired marker and keeping every other field; creates it if absent.
   */
  save(root: string, projectId: string, backend: Backend | null): Checkout;
}
