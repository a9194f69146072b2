/** How much snapshot text (in characters, about bytes: it is mostly ASCII) a board process keeps: a 10k-node project's snapshot is about 3 M. */
export const SNAPSHOT_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * The last snapshot of each project as the JSON text it is sent as, kept while its ETag (the
 * project's revision) stands: every viewer of a revision, and every reload, is answered from the
 * text built once (at 10k nodes building and serialising it takes most of a board's open).
 * Bounded by size, least recently served out first; one project's entry is replaced when its
 * revision moves.
 */
export class SnapshotCache {
  private readonly entries = new Map<string, { etag: string; json: string }>();
  private chars = 0;

  constructor(private readonly maxChars = SNAPSHOT_CACHE_CHARS) {}

  /** The snapshot text of `project` at `etag`: the one kept, or the one `build` makes (then kept). */
  text(project: string, etag: string, build: () => string): string {
    const kept = this.entries.get(project);
    if (kept) this.drop(project, kept.json);
    const json = kept?.etag === etag ? kept.json : build();
    this.entries.set(project, { etag, json });
    this.chars += json.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars || oldest === project) break;
      this.drop(oldest, entry.json);
    }
    return json;
  }

  private drop(project: string, json: string): void {
    this.entries.delete(project);
    this.chars -= json.length;
  }
}
