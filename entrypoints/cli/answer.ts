import { mayHoldEscapedHalf, wellFormedAnswerText } from '../../application/contract/well-formed-answer.js';
import { JsonText } from '../../domain/json-text.js';
import { errorEnvelope, exitCodeOf } from '../envelope.js';
import type { GlobalFlags } from './context.js';

/** Where a command line's answer goes: a stream, or a plain descriptor writer (see FdWriter). */
export interface AnswerOutput {
  write(text: string | Uint8Array): unknown;
  isTTY?: boolean;
}

/**
 * How a command line answers on `stdout`: one JSON value (indented on a terminal), without its
 * warnings under `--no-warnings`; a failure as its envelope, giving the exit status. An answer
 * given as JsonText (the command line asks for it: `printed`) is printed as its text, the same
 * bytes `JSON.stringify` writes of its value; indented on a terminal from its value. Stored text
 * holding half of a surrogate pair is shown as U+FFFD, with a warning (wellFormedAnswerText).
 */
export function answerOn(stdout: AnswerOutput, globals: GlobalFlags): { emit(value: unknown): void; fail(error: unknown): number } {
  const space = stdout.isTTY ? 2 : undefined;
  const write = (value: unknown) => {
    const shown = globals.noWarnings ? withoutWarnings(value) : value;
    // Parts written as bytes (the stale-claim alerts of `status`) hold no backslash, so no escaped half of a surrogate pair: printed as they are.
    if (shown instanceof JsonText && space === undefined && shown.parts.length > 1 && !shown.parts.some((part) => typeof part === 'string' && mayHoldEscapedHalf(part))) {
      stdout.write(Buffer.concat([...shown.parts, '\n'].map((part) => (typeof part === 'string' ? Buffer.from(part) : part))));
      return;
    }
    const text = shown instanceof JsonText && space === undefined ? shown.text : JSON.stringify(shown, null, space);
    stdout.write(wellFormedAnswerText(text, { warn: !globals.noWarnings, space }) + '\n');
  };
  return {
    emit: write,
    fail: (error) => {
      const envelope = errorEnvelope(error);
      write(envelope);
      return exitCodeOf(envelope);
    },
  };
}

function withoutWarnings(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('warnings' in value)) return value;
  const { warnings: _warnings, ...rest } = value as Record<string, unknown>;
  return rest;
}
