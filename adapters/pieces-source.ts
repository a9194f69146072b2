import type { ByteSource } from './lazy-nodes.js';

/**
 * Bytes received in pieces (a checkpoint's rows from PostgreSQL) as one source to decode from,
 * without joining them: a range within a piece is a view of it, one across pieces a copy of that
 * range alone. Joined, a 50k-node checkpoint's 60 pieces were one 60 MB copy in one turn of the
 * event loop.
 */
export function piecesSource(pieces: readonly Buffer[]): ByteSource {
  const starts: number[] = [];
  let size = 0;
  for (const piece of pieces) {
    starts.push(size);
    size += piece.length;
  }
  /** The index of the piece that holds byte `at` (the last piece whose start is at or before it). */
  const pieceAt = (at: number): number => {
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  return {
    size,
    bytes(start, end) {
      const from = Math.max(0, Math.min(start, size));
      const to = Math.max(from, Math.min(end, size));
      if (from === to) return Buffer.alloc(0);
      const first = pieceAt(from);
      if (to <= starts[first]! + pieces[first]!.length) return pieces[first]!.subarray(from - starts[first]!, to - starts[first]!);
      const bytes = Buffer.allocUnsafe(to - from);
      for (let index = first, written = 0; written < bytes.length; index++) {
        const piece = pieces[index]!;
        const offset = Math.max(0, from - starts[index]!);
        written += piece.copy(bytes, written, offset, Math.min(piece.length, offset + bytes.length - written));
      }
      return bytes;
    },
  };
}
