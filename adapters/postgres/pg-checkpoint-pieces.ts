import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { invalidFile } from '../storage-error.js';

/**
 * A checkpoint in PostgreSQL (schema 8, docs/scaling.md): its bytes cut into pieces at places
 * chosen by their content, each piece stored once per project under its SHA-256, and a manifest
 * row per checkpoint whose references list the pieces in order. A checkpoint that differs from
 * the one before in a few nodes shares every other piece with it, so a save writes (and logs in
 * the WAL) only the pieces whose bytes changed: a 50k-node checkpoint written whole was about
 * 23 MB of WAL, and every commit meanwhile waited on that flush.
 */

/** A piece's bounds: cuts are never closer than MIN, always made by CHECKPOINT_PIECE_BYTES (a row a load decodes in one turn). */
const MIN_PIECE = 16 * 1024;
export const CHECKPOINT_PIECE_BYTES = 256 * 1024;
/** A cut where the rolling hash's low 16 bits are zero: one place in 64 KiB on average. */
const CUT_MASK = 0xffff;
/** The gear hash (FastCDC's) forgets a byte after 32 more: hashing starts this far before MIN. */
const HASH_WINDOW = 32;

/** The gear table: any fixed random numbers, the same in every process and release, so equal bytes cut alike. */
const GEAR = (() => {
  const table = new Int32Array(256);
  for (let index = 0; index < 256; index++) table[index] = createHash('sha256').update(`taskdag-gear-${index}`).digest().readInt32BE(0);
  return table;
})();

/** One piece of a checkpoint: its bytes and their SHA-256 (hex), its name in the database. */
export interface CheckpointPiece {
  hash: string;
  bytes: Buffer;
}

/**
 * Cuts `buffers` (a checkpoint's parts, in order) into pieces by content (FastCDC's gear hash): a
 * cut depends only on the bytes just before it, so bytes that did not change are cut where they
 * were, and a changed node changes only the piece (or two) that holds it. Yields after each
 * piece, so a caller can give the event loop a turn.
 */
export function* contentPieces(buffers: readonly Buffer[]): Generator<CheckpointPiece> {
  let held: Buffer[] = [];
  let size = 0;
  let hash = 0;
  const cut = (): CheckpointPiece => {
    const bytes = held.length === 1 ? held[0]! : Buffer.concat(held, size);
    held = [];
    size = 0;
    hash = 0;
    return { hash: createHash('sha256').update(bytes).digest('hex'), bytes };
  };
  for (const buffer of buffers) {
    let start = 0;
    let at = 0;
    while (at < buffer.length) {
      // Bytes before the window that can decide a cut are skipped unhashed.
      const unhashed = MIN_PIECE - HASH_WINDOW - size;
      if (unhashed > 0) {
        const skipped = Math.min(unhashed, buffer.length - at);
        at += skipped;
        size += skipped;
        continue;
      }
      const limit = Math.min(buffer.length, at + CHECKPOINT_PIECE_BYTES - size);
      const found = scanForCut(buffer, at, at + Math.max(0, MIN_PIECE - size), limit, hash);
      hash = scanned;
      const end = found >= 0 ? found : limit;
      size += end - at;
      at = end;
      if (found >= 0 || size >= CHECKPOINT_PIECE_BYTES) {
        held.push(buffer.subarray(start, at));
        start = at;
        yield cut();
      }
    }
    // Most parts (a node's line) lie whole in one piece: held as they are (a view costs more than the part's scan).
    if (start < buffer.length) held.push(start === 0 ? buffer : buffer.subarray(start));
  }
  if (size > 0) yield cut();
}

/** The rolling hash where scanForCut stopped (a second result, kept out of an object the loop would allocate). */
let scanned = 0;

/**
 * The gear hash from `hash` over `buffer` from `from` to `limit`: the first place at or after
 * `testFrom` where its low bits are zero (the index after the byte), or -1; the hash it reached
 * is left in `scanned`. A plain function, not part of the generator, and the hash kept in int32
 * (`| 0`): a uint32 above 2^30 is a heap number, and the loop ran ten times slower.
 */
function scanForCut(buffer: Buffer, from: number, testFrom: number, limit: number, hash: number): number {
  let h = hash;
  let index = from;
  const untested = Math.min(testFrom, limit);
  for (; index < untested; index++) h = ((h << 1) + GEAR[buffer[index]!]!) | 0;
  for (; index < limit; index++) {
    h = ((h << 1) + GEAR[buffer[index]!]!) | 0;
    if ((h & CUT_MASK) === 0) {
      scanned = h;
      return index + 1;
    }
  }
  scanned = h;
  return -1;
}

/** contentPieces with a turn of the event loop after about every SLICE_BYTES: a server goes on serving while a checkpoint is cut. */
export async function contentPiecesInSlices(buffers: readonly Buffer[]): Promise<CheckpointPiece[]> {
  const pieces: CheckpointPiece[] = [];
  let sinceTurn = 0;
  for (const piece of contentPieces(buffers)) {
    pieces.push(piece);
    sinceTurn += piece.bytes.length;
    if (sinceTurn >= SLICE_BYTES) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return pieces;
}

/** About 2 ms of cutting and hashing. */
const SLICE_BYTES = 2 * 1024 * 1024;

/** Pieces sent in one statement, at most this many bytes of them: the driver copies a statement's values on the event loop. */
const STATEMENT_BYTES = 1024 * 1024;

/**
 * Opens a save: serialized with every other save and whole replacement of the project (the
 * project's advisory lock, which `rewrite` takes too), so no other save removes a piece this one
 * finds already stored; pieces are compressed with lz4 where the database has it (the default,
 * pglz, cost the database about four times the CPU).
 */
const SAVE_BEGINS = `
  SELECT pg_advisory_xact_lock(hashtext($1)),
    (SELECT set_config('default_toast_compression', 'lz4', true) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`;
const STORED_PIECES = `SELECT encode(hash, 'hex') AS hash FROM taskdag_checkpoint_pieces WHERE project = $1 AND hash = ANY (SELECT decode(h, 'hex') FROM unnest($2::text[]) h)`;
/** $1 the project, $2 the incarnation, $3 the revision, $4 the pieces' hashes in order, $5 their total bytes. */
const SAVE_MANIFEST = `
  WITH saved AS (
    INSERT INTO taskdag_checkpoint_manifests (project, incarnation, revision, pieces, bytes) VALUES ($1, $2, $3, cardinality($4::text[]), $5)
    ON CONFLICT DO NOTHING RETURNING revision
  )
  INSERT INTO taskdag_checkpoint_piece_refs (project, revision, position, hash)
  SELECT $1, saved.revision, piece.position - 1, decode(piece.hash, 'hex') FROM saved, unnest($4::text[]) WITH ORDINALITY AS piece (hash, position)`;
/** Once a checkpoint of revision $2 is in: the older ones go (their references with them), and the checkpoints of schema 7. */
const DROP_OLDER = `
  WITH dropped AS (
    DELETE FROM taskdag_checkpoint_manifests WHERE project = $1 AND revision < $2 AND EXISTS (SELECT 1 FROM taskdag_checkpoint_manifests WHERE project = $1 AND revision = $2)
  )
  DELETE FROM taskdag_checkpoints WHERE project = $1`;
/** Pieces no checkpoint of the project references any longer: a statement after DROP_OLDER, so it sees the references gone. */
const DROP_UNREFERENCED = `
  DELETE FROM taskdag_checkpoint_pieces p WHERE p.project = $1
    AND NOT EXISTS (SELECT 1 FROM taskdag_checkpoint_piece_refs r WHERE r.project = $1 AND r.hash = p.hash)`;

/**
 * Saves the checkpoint of `revision` made of `pieces` on `client`, in its transaction: the pieces
 * the project does not hold yet, the manifest and its references, then the older checkpoints and
 * the pieces only they used go. One transaction: a crash at any point leaves the older checkpoint
 * whole (and the references' foreign keys make a manifest naming a missing piece impossible).
 */
export async function saveCheckpointPieces(client: PoolClient, project: string, incarnation: number, revision: number, pieces: readonly CheckpointPiece[]): Promise<void> {
  await client.query(SAVE_BEGINS, [project]);
  const hashes = pieces.map((piece) => piece.hash);
  const stored = new Set((await client.query<{ hash: string }>(STORED_PIECES, [project, [...new Set(hashes)]])).rows.map((row) => row.hash));
  const missing = new Map<string, Buffer>();
  for (const piece of pieces) if (!stored.has(piece.hash)) missing.set(piece.hash, piece.bytes);
  for (const batch of statementBatches([...missing])) {
    const values: unknown[] = [project];
    const rows = batch.map(([hash, bytes]) => `($1, decode($${values.push(hash)}, 'hex'), $${values.push(bytes)})`);
    await client.query(`INSERT INTO taskdag_checkpoint_pieces (project, hash, bytes) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`, values);
  }
  const bytes = pieces.reduce((sum, piece) => sum + piece.bytes.length, 0);
  await client.query(SAVE_MANIFEST, [project, incarnation, revision, hashes, bytes]);
  await client.query(DROP_OLDER, [project, revision]);
  await client.query(DROP_UNREFERENCED, [project]);
}

/** The pieces in statements of at most STATEMENT_BYTES (a piece larger than that alone in its own). */
function* statementBatches(pieces: readonly [string, Buffer][]): Generator<[string, Buffer][]> {
  let batch: [string, Buffer][] = [];
  let bytes = 0;
  for (const piece of pieces) {
    if (batch.length > 0 && bytes + piece[1].length > STATEMENT_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(piece);
    bytes += piece[1].length;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Every checkpoint of the project and every piece, for a whole replacement that starts a new
 * incarnation: before its row changes (the manifests' foreign key). The pieces go too, so that
 * the replacement writes each of its own again: a save trusts a piece stored under a hash to hold
 * those bytes, and one damaged where the database keeps it would otherwise go into the restored
 * checkpoint too, and a restore could never mend it.
 */
export async function dropCheckpoints(client: PoolClient, project: string): Promise<void> {
  await client.query('DELETE FROM taskdag_checkpoint_manifests WHERE project = $1', [project]);
  await client.query('DELETE FROM taskdag_checkpoint_pieces WHERE project = $1', [project]);
  await client.query('DELETE FROM taskdag_checkpoints WHERE project = $1', [project]);
}

/**
 * $1 the project, $2 its incarnation: the newest checkpoint's pieces in order, a row each (each
 * decoded as it arrives), with the manifest's count and size to check them against.
 */
const NEWEST_CHECKPOINT = `
  SELECT m.revision::int, m.pieces, m.bytes::bigint::float8 AS bytes, p.bytes AS piece
  FROM (SELECT revision, pieces, bytes FROM taskdag_checkpoint_manifests WHERE project = $1 AND incarnation = $2 ORDER BY revision DESC LIMIT 1) m
  JOIN taskdag_checkpoint_piece_refs r ON r.project = $1 AND r.revision = m.revision
  JOIN taskdag_checkpoint_pieces p ON p.project = $1 AND p.hash = r.hash
  ORDER BY r.position`;

/** The newest checkpoint of `incarnation`, in its pieces (never joined), or null when it has none. */
export async function newestCheckpoint(client: PoolClient, project: string, incarnation: number, location: string): Promise<{ revision: number; pieces: Buffer[] } | null> {
  type Row = { revision: number; pieces: number; bytes: number; piece: Buffer };
  const rows = (await client.query<Row>(NEWEST_CHECKPOINT, [project, incarnation])).rows;
  if (rows.length === 0) return null;
  const { revision, pieces, bytes } = rows[0]!;
  const received = rows.reduce((sum, row) => sum + row.piece.length, 0);
  if (rows.length !== pieces || received !== bytes) {
    throw invalidFile(`${location}/checkpoints/${revision}`, `the checkpoint has ${rows.length} of its ${pieces} pieces, ${received} of its ${bytes} bytes`);
  }
  return { revision, pieces: rows.map((row) => row.piece) };
}
