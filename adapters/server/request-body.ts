import type { Context } from 'koa';
import { DomainError } from '../../domain/errors.js';
import { illFormedTextMessage, isWellFormedText } from '../../domain/well-formed-text.js';

function tooLarge(limit: number, source: string): DomainError {
  return new DomainError('REQUEST_TOO_LARGE', `The request body is larger than ${limit} bytes (${source})`, { limit_bytes: limit });
}

/**
 * The request's JSON body, read with a cap: a declared Content-Length above it is refused before
 * reading, and a chunked body is cut off as soon as it passes the cap, so no body is ever held
 * whole past the limit. An empty body is `{}`. `source` is what sets the limit, for the error.
 */
export async function readJsonBody(ctx: Context, limit: number, source = 'TASKDAG_SERVER_MAX_BODY_BYTES'): Promise<unknown> {
  return parseJsonBody(await readBodyText(ctx, limit, source));
}

/** The request's body as text, read with readJsonBody's cap, not parsed: what a process relays as it came. */
export async function readBodyText(ctx: Context, limit: number, source = 'TASKDAG_SERVER_MAX_BODY_BYTES'): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw tooLarge(limit, source);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit, source);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A body read by readBodyText, parsed as readJsonBody does. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `The request body is not JSON: ${(error as Error).message}`, {});
  }
}

/**
 * INVALID_ARGUMENT for a key a request body does not take (`takes` lists those it does): named
 * in the message and `details.field`, unless it holds half of a surrogate pair, which no answer
 * could carry (docs/decisions.md): then `details.key` says a key was refused, unnamed.
 */
export function strayKeyError(takes: string, stray: string): DomainError {
  if (!isWellFormedText(stray)) return new DomainError('INVALID_ARGUMENT', illFormedTextMessage('A key of the body'), { path: '', key: true });
  return new DomainError('INVALID_ARGUMENT', `The body takes ${takes}, not ${stray}`, { field: stray });
}
