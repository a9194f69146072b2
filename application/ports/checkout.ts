/** The remote backend a linked checkout points at (spec 2.6). */
export interface Backend {
  type: string;
  url: string;
}

/** What `.taskdag.json` says about the checkout it sits in. */
export interface Checkout {
  root: string;
  project_id: string;
  backend: Backend | null;
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
}
