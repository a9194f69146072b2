/**
 * The deterministic mutations the crash and concurrency proofs run, so that a state read after a
 * kill can be checked against exactly "before" or "after" the mutation that was in flight.
 */

/**
 * Task bodies: mostly 2 KiB, every tenth mutation 64 KiB, so that the ledger crosses the store's
 * checkpoint threshold (at most 192 KiB) every few dozen mutations and kills also land in checkpoint writes.
 */
const bodyOf = (k: number) => 'x'.repeat(k % 10 === 5 ? 65_536 : 2048);

export interface Mutation {
  argv: string[];
  /** Standard input of the command (a batch), if any. */
  input?: string;
}

const isBatch = (k: number) => k % 7 === 0;

/** Node ids mutation `k` creates. */
export function idsOf(k: number): string[] {
  return isBatch(k) ? [`T-${k}-a`, `T-${k}-b`] : [`T-${k}`];
}

/** Log entries (so state revisions) mutation `k` adds. */
export function entriesOf(k: number): number {
  return isBatch(k) ? 3 : 1;
}

function addTaskArgs(id: string, k: number) {
  return { id, initiative: 'core', title: `task ${id}`, body: bodyOf(k), acceptance: 'done when present', blocked_by: [] };
}

/** Mutation `k`: an add-task, or every seventh a batch of two tasks and an edge between them. */
export function mutation(k: number): Mutation {
  if (!isBatch(k)) {
    const args = addTaskArgs(`T-${k}`, k);
    return {
      argv: ['add-task', args.id, '--initiative', 'core', '--title', args.title, '--body', args.body, '--acceptance', args.acceptance, '--blocked-by', '', '--as', 'writer'],
    };
  }
  const [a, b] = idsOf(k) as [string, string];
  const operations = [
    { op: 'add-task', args: addTaskArgs(a, k) },
    { op: 'add-task', args: addTaskArgs(b, k) },
    { op: 'add-edge', args: { from: a, to: b, type: 'BLOCKS' } },
  ];
  return { argv: ['batch', '--stdin', '--as', 'writer'], input: JSON.stringify({ operations }) };
}

/** Node ids and state revision after mutations 1..m, on a project whose revision was `base` before them. */
export function expectedAfter(m: number, base: number): { ids: string[]; revision: number } {
  const ids: string[] = [];
  let revision = base;
  for (let k = 1; k <= m; k++) {
    ids.push(...idsOf(k));
    revision += entriesOf(k);
  }
  return { ids: ids.sort(), revision };
}
