/** At most this many suggestions: more would be a list to read, not a correction. */
const MOST = 3;

/**
 * What the user probably meant by `typed` among `candidates`, closest first: a candidate equal
 * but for case, then those a few typing slips away (a letter missing, extra, wrong or two letters
 * swapped: `tkae` → take, `--intiative` → --initiative), then those `typed` begins (`deprecate`
 * → deprecate-knowledge). Empty when nothing is close: a far-fetched guess misleads more than
 * none. It runs only on a failure, so a plain scan of every candidate is cheap enough.
 */
export function closestTo(typed: string, candidates: Iterable<string>): string[] {
  const wanted = typed.toLowerCase();
  const slips = Math.max(1, Math.floor(wanted.length / 3));
  const ranked: { candidate: string; rank: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === typed) continue;
    const lower = candidate.toLowerCase();
    const distance = lower === wanted ? 0 : slipsBetween(wanted, lower, slips);
    if (distance <= slips) ranked.push({ candidate, rank: distance });
    else if (wanted.length >= 3 && lower.startsWith(wanted)) ranked.push({ candidate, rank: slips + 1 });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.candidate.localeCompare(b.candidate));
  return ranked.slice(0, MOST).map(({ candidate }) => candidate);
}

/** `, did you mean a or b?` for a message; nothing when there is no suggestion. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const spelled = suggestions.length === 1 ? suggestions[0]! : `${suggestions.slice(0, -1).join(', ')} or ${suggestions.at(-1)!}`;
  return `: did you mean ${spelled}?`;
}

/**
 * The optimal string alignment distance (edits, and swaps of two neighbours) between `a` and
 * `b`, or `bound + 1` as soon as it must exceed `bound`: most candidates are far, and a length
 * gap alone says so.
 */
function slipsBetween(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > bound) return bound + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, bound + 1);
}
