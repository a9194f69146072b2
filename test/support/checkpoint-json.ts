import { readFileSync, writeFileSync } from 'node:fs';
import { encodeCheckpoint, memberLine, readCheckpoint } from '../../adapters/checkpoint-file.js';
import { headsOf } from '../../adapters/head-columns.js';
import { bucketSections, headsLine } from '../../adapters/heads-line.js';
import { GraphIndex } from '../../domain/graph-index.js';
import { emptyGraph } from '../../domain/model.js';
import { StatusIndex } from '../../domain/status-index.js';
import { STATUS_RULES_VERSION } from '../../domain/status.js';

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

/**
 * Rewrites the heads (derived statuses) a checkpoint saved so that node `id`'s says `status` (in
 * every section that holds it), leaving every node and edge as it is. `rules`: the rules version
 * the heads then claim, with checksums that match the new line (only the version can tell them apart); without it, the
 * version and checksum are left as they were (the heads were edited alone).
 */
export function editSavedHeads(file: string, id: string, status: string, rules?: number): void {
  rewriteHeadsLine(
    file,
    (line, ids) => {
      const heads = line.columns;
      const position = ids.indexOf(id);
      if (position < 0) throw new Error(`no node ${id} in ${file}`);
      if (!heads.strings.includes(status)) heads.strings.push(status);
      heads.status[position] = heads.strings.indexOf(status);
      for (const entry of line.knowledge) if (entry[0] === id) entry[1] = status;
      // The status buckets apart, filed again from the edited heads as a checkpoint files them.
      const edited = headsOf(heads, ids)!;
      const index = new StatusIndex(emptyGraph(), new GraphIndex(emptyGraph()), () => edited);
      const buckets = bucketSections(index.groups(), edited, [...index.claimed().inOrder()]) ?? [];
      const lineChecksums: [string, Buffer][] = line.line_crc32 === undefined ? [] : [['line_crc32', Buffer.from(JSON.stringify(line.line_crc32))]];
      return [['columns', Buffer.from(JSON.stringify(heads))], ['knowledge', Buffer.from(JSON.stringify(line.knowledge))], ['endpoints', Buffer.from(JSON.stringify(line.endpoints))], ...lineChecksums, ...buckets];
    },
    rules,
  );
}

/**
 * Rewrites the `claims` section of a checkpoint's heads line to hold `entries`, every other
 * section's bytes as they were, with checksums that hold: as a checkpoint that saved them so.
 */
export function editSavedClaims(file: string, entries: unknown[]): void {
  rewriteHeadsLine(file, (_line, _ids, sections) => sections.map(([name, bytes]) => [name, name === 'claims' ? Buffer.from(JSON.stringify(entries)) : bytes]), STATUS_RULES_VERSION);
}

/**
 * Rewrites a checkpoint's heads line without the sections whose names start with `prefix`, every
 * other section's bytes as they were, with checksums that hold: as a release that did not write them.
 */
export function dropSavedSections(file: string, prefix: string): void {
  rewriteHeadsLine(file, (_line, _ids, sections) => sections.filter(([name]) => !name.startsWith(prefix)), STATUS_RULES_VERSION);
}

/**
 * Writes a checkpoint's heads line again from the sections `edit` gives (from the line parsed, the
 * ids, and each section's bytes as written), leaving every node and edge as it is. `rules`: the
 * rules version the heads then claim, with checksums that match the new line (only the version
 * can tell them apart); without it, the version and checksum are left as they were.
 */
function rewriteHeadsLine(file: string, edit: (line: Record<string, any>, ids: string[], sections: [string, Buffer][]) => [string, Buffer][], rules?: number): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const member = JSON.parse(`{${lines[1]!.slice(0, -1)}}}`).checkpoint;
  // The heads line follows the id list and the slot table (checkpoint-file.ts).
  const at = lines.findIndex((text) => text.startsWith('"heads":'));
  const line = JSON.parse(`{${lines[at]!.slice(0, -1)}`).heads;
  const bytes = Buffer.from(lines[at]!);
  const written = Object.entries(line.sections as Record<string, [string, string, string]>).map(([name, [start, end]]): [string, Buffer] => [name, bytes.subarray(Number(start), Number(end))]);
  const { ids } = JSON.parse(`{${lines[2]!.slice(0, -1)}}`);
  const encoding = headsLine(edit(line, ids, written));
  let step = encoding.next();
  while (!step.done) step = encoding.next();
  lines[at] = step.value.line.toString('utf8').slice(0, -1);
  member.lines.heads = Buffer.byteLength(lines[at]) + 1;
  // The line checksums are kept, where they now are.
  const moved = step.value.bounds.get('line_crc32');
  if (moved) member.line_crc32 = [moved.start, moved.end, moved.crc];
  if (rules !== undefined) {
    member.heads_rules = rules;
    member.heads_crc32 = step.value.crc;
  }
  lines[1] = memberLine(member);
  writeFileSync(file, lines.join('\n'));
}
