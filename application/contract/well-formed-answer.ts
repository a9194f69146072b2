import { withWellFormedText } from '../../domain/well-formed-text.js';
import { illFormedTextWarning } from '../remote/warnings.js';

/**
 * Whether `text` may hold half of a surrogate pair as JSON.stringify escapes one (`\ud800`: the
 * only `\ud` escape it writes). A text holding a backslash before `ud` matches as well, and is
 * then found to need nothing: the test only spares every other answer the walk. Two searches
 * for a plain string: no regular expression runs over every answer.
 */
export function mayHoldEscapedHalf(text: string): boolean {
  return text.includes('\\ud') || text.includes('\\uD');
}

/**
 * An answer's JSON text (as JSON.stringify wrote it, with `space`) as JSON every strict reader
 * takes: where a state an earlier build wrote holds half of a surrogate pair, which no UTF-8 JSON
 * can carry, the half is shown as U+FFFD and, with `warn`, the answer's `warnings` say so, where,
 * and which half it was (docs/decisions.md, "Text is well-formed Unicode"). Every other answer is
 * `text` itself. What is stored is never changed: only what is shown.
 */
export function wellFormedAnswerText(text: string, options: { warn: boolean; space?: number | undefined }): string {
  if (!mayHoldEscapedHalf(text)) return text;
  const { value, replaced } = withWellFormedText(JSON.parse(text));
  if (replaced.length === 0) return text;
  return JSON.stringify(options.warn ? withWarning(value, illFormedTextWarning(replaced)) : value, null, options.space);
}

/** An answer (an object: a result or a failure's envelope) with `warning` after those it has. */
function withWarning(answer: unknown, warning: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return answer;
  const { warnings } = answer as { warnings?: unknown };
  return { ...answer, warnings: [...(Array.isArray(warnings) ? warnings : []), warning] };
}
