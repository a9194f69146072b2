/**
 * The last transfer both sides confirmed (spec 4.5 rule 3): the revision each side held right
 * after it. Push compares the server's revision to `remote_revision`, pull the local one to
 * `local_revision`.
 */
export interface TransferBaseline {
  local_revision: number;
  remote_revision: number;
  confirmed_at: string;
}

/** Baselines kept on this machine, scoped by origin and project id; never in the checkout. */
export interface TransferBaselines {
  get(origin: string, project: string): Promise<TransferBaseline | null>;
  put(origin: string, project: string, baseline: TransferBaseline): Promise<void>;
}
