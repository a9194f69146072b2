import type { Timestamp } from '../domain/clock.js';
import type { SnapshotReason } from '../application/ports/snapshot-store.js';

export const SNAPSHOT_REASONS: readonly SnapshotReason[] = ['force-init', 'corrupt-recovery', 'pre-restore', 'pre-migrate'];
/** `20261122T045639123Z-pre-restore`: a compact UTC timestamp first, so names sort by creation. */
export const SNAPSHOT_ID = /^(\d{8}T\d{9}Z)-([a-z]+(?:-[a-z]+)*)$/;

/** The stamp of a new snapshot: `now`, or just after `newest` (the newest existing stamp) so ids sort by creation even within one millisecond. */
export function nextSnapshotStamp(now: Timestamp, newest: string | undefined): string {
  const stamp = compactStamp(now);
  return newest !== undefined && newest >= stamp ? compactStamp(new Date(Date.parse(expandStamp(newest)) + 1).toISOString()) : stamp;
}

export function sha256(contents: Buffer): string {
  return (require('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(contents).digest('hex');
}

/** A snapshot part's size and sha256, as its metadata records them. */
export function digestOf(contents: Buffer): { bytes: number; sha256: string } {
  return { bytes: contents.length, sha256: sha256(contents) };
}

export function matchesDigest(contents: Buffer, digest: { bytes: number; sha256: string }): boolean {
  return contents.length === digest.bytes && sha256(contents) === digest.sha256;
}

/** `2026-11-22T04:56:39.123Z` -> `20261122T045639123Z` */
function compactStamp(timestamp: Timestamp): string {
  return timestamp.replace(/[-:.]/g, '');
}

/** `20261122T045639123Z` -> `2026-11-22T04:56:39.123Z` */
function expandStamp(stamp: string): Timestamp {
  return stamp.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/, '$1-$2-$3T$4:$5:$6.$7Z');
}
