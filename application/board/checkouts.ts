import type { Timestamp } from '../../domain/clock.js';
import type { CheckoutRecordStore, SeenCheckout, SeenCheckouts } from '../ports/checkout-record.js';
import type { Clock } from '../ports/clock.js';

/** How many checkouts a project keeps, the most recently seen. */
export const CHECKOUTS_KEPT = 20;
/** The longest label kept: a host name and a path. */
export const LABEL_MAX_CHARS = 512;
/** A checkout seen again within this is not written again: last_seen is to the minute. */
export const SEEN_WRITE_MS = 60_000;

/** Why `label` is not a checkout label (null: it is one): 1-512 characters, no control characters. */
export function checkoutLabelProblem(label: string): string | null {
  if (label.length === 0 || label.length > LABEL_MAX_CHARS) return `a checkout label is 1-${LABEL_MAX_CHARS} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(label)) return 'a checkout label has no control characters';
  return null;
}

/**
 * A project's checkouts with `label` seen at `at`: moved to the front with its new time, the
 * oldest dropped past CHECKOUTS_KEPT. `written` says whether it is worth writing: a new label,
 * or one last written SEEN_WRITE_MS ago or more (otherwise its time stays the one written).
 */
export function withCheckoutSeen(known: readonly SeenCheckout[], label: string, at: Timestamp): { entries: SeenCheckout[]; written: boolean } {
  const before = known.find((entry) => entry.label === label);
  const written = !before || isDue(before, at);
  const entry: SeenCheckout = { label, last_seen: written || !before ? at : before.last_seen };
  return { entries: [entry, ...known.filter((other) => other.label !== label)].slice(0, CHECKOUTS_KEPT), written };
}

function isDue(entry: SeenCheckout, at: Timestamp): boolean {
  return Date.parse(at) - Date.parse(entry.last_seen) >= SEEN_WRITE_MS;
}

/** The record as a file holds it: `{version: 1, projects: {id: [{label, last_seen}]}}`. */
export function renderCheckouts(record: SeenCheckouts): string {
  return `${JSON.stringify({ version: 1, projects: record }, null, 2)}\n`;
}

/** The record in `text`, keeping only well-formed entries; null when it is not such a file at all. */
export function parseCheckouts(text: string): SeenCheckouts | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const projects = (parsed as { version?: unknown; projects?: unknown } | null)?.projects;
  if ((parsed as { version?: unknown }).version !== 1 || typeof projects !== 'object' || projects === null || Array.isArray(projects)) return null;
  const record: SeenCheckouts = {};
  for (const [project, entries] of Object.entries(projects)) {
    if (!Array.isArray(entries)) continue;
    record[project] = entries.filter(
      (entry): entry is SeenCheckout =>
        typeof entry?.label === 'string' && checkoutLabelProblem(entry.label) === null && typeof entry.last_seen === 'string' && !Number.isNaN(Date.parse(entry.last_seen)),
    );
  }
  return record;
}

/**
 * The checkouts a server has seen (docs/board.md): every linked checkout's request names it, the
 * server keeps the names in memory and writes them to its state home when one is new or a
 * minute has passed, one write at a time, off the request's path (the record is a guide for
 * people, never what an answer depends on; a failed write is logged and tried again later).
 */
export class CheckoutsSeen {
  private writing: Promise<void> | null = null;
  private dirty = false;

  private constructor(
    private readonly record: SeenCheckouts,
    private readonly store: CheckoutRecordStore,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
  ) {}

  static async open(store: CheckoutRecordStore, clock: Clock, log: (line: string) => void): Promise<CheckoutsSeen> {
    return new CheckoutsSeen(await store.load(), store, clock, log);
  }

  all(): SeenCheckouts {
    return this.record;
  }

  seen(project: string, label: string): void {
    const now = this.clock.now();
    const known = this.record[project] ?? [];
    // Every request of a checkout passes here: the usual case, the same one again, costs nothing.
    if (known[0]?.label === label && !isDue(known[0], now)) return;
    const next = withCheckoutSeen(known, label, now);
    this.record[project] = next.entries;
    if (!next.written) return;
    this.dirty = true;
    this.writing ??= this.writeWhileDirty();
  }

  /** Resolves once what was seen so far is written (or its write failed and was logged). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeWhileDirty(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        await this.store.save(this.record).catch((error: unknown) => this.log(`taskdag server: the checkouts seen were not written (${(error as Error).message})`));
      }
    } finally {
      this.writing = null;
    }
  }
}
