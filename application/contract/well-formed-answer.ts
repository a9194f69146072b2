import { withWellFormedText } from '../../domain/well-formed-text.js';
import { illFormedTextWarning } from '../remote/warnings.js';

/**
 * Half of a surrogate pair as JSON.stringify escapes one (`\ud800`). A text holding a backslash
 * before `ud8` matches as well, and is then found to need nothing: the test only spares every
 * other answer the walk.
 */
const ESCAPED_HALF = /\\u[dD][89a-fA-F]/;

/**
 * An answer's JSON text (as JSON.stringify wrote it, with `space`) as JSON every strict reader
 * takes: where a state an earlier build wrote holds half of a surrogate pair, which no UTF-8 JSON
 * can carry, the half is shown as U+FFFD and, with `warn`, the answer's `warnings` say so, where,
 * and which half it was (docs/decisions.md, "Text is well-formed Unicode"). Every other answer is
 * `text` itself. What is stored is never changed: only what is shown.
 */
export function wellFormedAnswerText(text: string, options: { warn: boolean; space?: number | undefined }): string {
  if (!ESCAPED_HALF.test(text)) return text;
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
