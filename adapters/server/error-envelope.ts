import type { Middleware } from 'koa';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { HTTP_STATUS } from './http-status.js';
import type { PathRedactor } from './path-redactor.js';

/** The status codes Koa and Node raise themselves, as our codes. */
function fromHttpError(status: number, message: string): DomainError {
  if (status === 413) return new DomainError('REQUEST_TOO_LARGE', message, {});
  if (status === 401) return new DomainError('AUTH_INVALID', message, {});
  if (status === 404 || status === 405) return new DomainError('UNKNOWN_COMMAND', message, {});
  return new DomainError('INVALID_ARGUMENT', message, {});
}

/**
 * First in the chain: turns every error, and every request no route answered, into the CLI's
 * envelope `{ok: false, error: {code, message, details}}` with the status of HTTP_STATUS. An
 * unexpected error is logged for the operator and answered as CLI_INTERNAL_ERROR with no
 * internals; known errors have server paths redacted.
 */
export function errorEnvelope(redactor: PathRedactor, log: (line: string) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) {
        throw new DomainError('UNKNOWN_COMMAND', `No route ${ctx.method} ${ctx.path}`, { method: ctx.method, path: ctx.path });
      }
    } catch (thrown) {
      const status = (thrown as { status?: unknown }).status;
      let error: DomainError;
      if (isDomainError(thrown)) error = thrown;
      else if (typeof status === 'number' && status >= 400 && status < 500) error = fromHttpError(status, (thrown as Error).message);
      else {
        log(`taskdag server: internal error on ${ctx.method} ${ctx.path}: ${(thrown as Error)?.stack ?? String(thrown)}`);
        error = new DomainError('CLI_INTERNAL_ERROR', 'Internal error: the server failed unexpectedly (see its log)', {});
      }
      ctx.status = HTTP_STATUS[error.code];
      ctx.body = { ok: false, error: { code: error.code, message: redactor.text(error.message), details: redactor.value(error.details) } };
      if (error.code === 'AUTH_INVALID') ctx.set('WWW-Authenticate', 'Bearer');
      const retryAfter = error.details.retry_after_ms;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(Math.ceil(retryAfter / 1000)));
      // A body we refused may still be arriving: do not read it to keep the connection.
      if (error.code === 'REQUEST_TOO_LARGE') ctx.set('Connection', 'close');
    }
  };
}
