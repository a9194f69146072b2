import { applyChangeSet } from '../domain/change-set.js';
import { emptyGraph, type State } from '../domain/model.js';
import { intactPrefix } from './ledger-records.js';
import { invalidFile } from './storage-error.js';

/**
 * The state a ledger generation holds on its own, when it starts at the state's creation (its
 * first record says `starts_empty`): every record that verifies replayed on an empty graph, up to
 * the first that does not (the records after it depend on it). This is how a state whose
 * checkpoint is lost or damaged comes back by command (`restore` of its corrupt-recovery
 * snapshot); a generation that starts from a checkpoint's graph cannot be replayed without it.
 */
export function replayFromCreation(ledger: Buffer, file: string): State {
  const { start, records } = intactPrefix(ledger);
  if (start?.starts_empty !== true || !Number.isSafeInteger(start.fence_generation)) {
    throw invalidFile(file, "its ledger does not start at the state's creation (only a checkpoint holds the graph it starts from): its files are kept for recovery by hand");
  }
  const graph = { ...emptyGraph(), fence_generation: start.fence_generation! };
  const log: State['log'] = [];
  for (const changes of records) {
    applyChangeSet(graph, changes);
    log.push(...changes.log);
  }
  return { ...graph, log };
}
