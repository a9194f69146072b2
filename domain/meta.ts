import { DomainError } from './errors.js';
import type { Meta } from './model.js';

/**
 * How deeply `meta` may nest (objects and arrays inside one another, the top level counting as
 * 1). Everything that serializes a node (the ledger, results, snapshots) recurses on depth, so a
 * user's mistake must stop here with INVALID_ARGUMENT, far below where those would overflow.
 */
export const MAX_META_DEPTH = 64;

/** Refuses a `meta` value nested deeper than MAX_META_DEPTH; walked iteratively, so any depth is safe to check. */
export function assertMetaDepth(meta: Meta): void {
  const pending: [unknown, number][] = [[meta, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (depth > MAX_META_DEPTH) {
      throw new DomainError('INVALID_ARGUMENT', `--meta nests deeper than ${MAX_META_DEPTH} levels`, { field: 'meta', max_depth: MAX_META_DEPTH });
    }
    for (const child of Object.values(value as object)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
}
