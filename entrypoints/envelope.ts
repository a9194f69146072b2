import { DomainError, isDomainError } from '../domain/errors.js';

export interface ErrorEnvelope {
  ok: false;
  error: { code: string; message: string; details: Record<string, unknown> };
  warnings?: unknown[];
}

/**
 * The one failure shape of every face of the product; unexpected errors expose no internals. A
 * failure a server answered keeps the warnings its envelope came with (HttpRemoteDispatcher).
 */
export function errorEnvelope(error: unknown): ErrorEnvelope {
  const known: DomainError = isDomainError(error)
    ? error
    : new DomainError('CLI_INTERNAL_ERROR', 'Internal error: taskdag failed unexpectedly', {
        reason: error instanceof Error ? error.message : String(error),
      });
  const { warnings } = known as { warnings?: unknown };
  return { ok: false, error: { code: known.code, message: known.message, details: known.details }, ...(Array.isArray(warnings) ? { warnings } : {}) };
}

/** Exit status of a failure (spec 4.1): 2 for an unknown or missing command, 1 otherwise. */
export function exitCodeOf(envelope: ErrorEnvelope): 1 | 2 {
  return envelope.error.code === 'UNKNOWN_COMMAND' ? 2 : 1;
}
