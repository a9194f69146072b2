/** A checkout the board lists under its project: a label naming it, and when it was last seen. */
export interface SeenCheckout {
  /** `<host>:<directory>` from a linked checkout; the directory on the local board. Never a secret. */
  label: string;
  last_seen: string;
}

/** The checkouts seen, by project id, newest first. */
export type SeenCheckouts = Record<string, SeenCheckout[]>;

/** Where the checkouts seen are kept: a server's state home, or the local taskdag home (docs/board.md). */
export interface CheckoutRecordStore {
  /** What was saved last; nothing (an empty record) when there is no record yet. */
  load(): Promise<SeenCheckouts>;
  /** Replaces the record, durably. */
  save(record: SeenCheckouts): Promise<void>;
}
