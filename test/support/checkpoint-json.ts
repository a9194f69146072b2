import { writeFileSync } from 'node:fs';
import { encodeCheckpoint, readCheckpoint } from '../../adapters/checkpoint-file.js';

/** A checkpoint's content as one plain object: the graph's fields and its `ledger` position. */
export function readCheckpointJson(file: string): Record<string, any> {
  const checkpoint = readCheckpoint(file);
  return { ...checkpoint.graph, ledger: checkpoint.ledger };
}

/** Writes `value` (as read by readCheckpointJson, perhaps damaged) back in the checkpoint format. */
export function writeCheckpointJson(file: string, value: Record<string, any>): void {
  const { ledger, ...graph } = value;
  // A ledger reference removed on purpose is written as an empty one (still malformed).
  writeFileSync(file, encodeCheckpoint(graph as never, ledger ?? {}));
}
