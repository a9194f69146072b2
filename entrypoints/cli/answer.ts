import { JsonText } from '../../domain/json-text.js';
import { errorEnvelope, exitCodeOf } from '../envelope.js';
import type { GlobalFlags } from './context.js';

/** Where a command line's answer goes: a stream, or a plain descriptor writer (see FdWriter). */
export interface AnswerOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * How a command line answers on `stdout`: one JSON value (indented on a terminal), without its
 * warnings under `--no-warnings`; a failure as its envelope, giving the exit status. An answer
 * given as JsonText (the command line asks for it: `printed`) is printed as its text, the same
 * bytes `JSON.stringify` writes of its value; indented on a terminal from its value.
 */
export function answerOn(stdout: AnswerOutput, globals: GlobalFlags): { emit(value: unknown): void; fail(error: unknown): number } {
  const write = (value: unknown) => stdout.write((value instanceof JsonText && !stdout.isTTY ? value.text : JSON.stringify(value, null, stdout.isTTY ? 2 : undefined)) + '\n');
  return {
    emit: (value) => write(globals.noWarnings ? withoutWarnings(value) : value),
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
