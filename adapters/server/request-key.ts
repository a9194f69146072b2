import { createHash } from 'node:crypto';
import type { RequestKey } from '../../domain/request-window.js';
import { DomainError } from '../../domain/errors.js';


/** What an id may be: a UUID, or any token of up to 128 characters that needs no quoting. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The key of a mutation from its `Idempotency-Key` header, or undefined without one (then it runs
 * as the spec says, a retry applying it again). The fingerprint is a SHA-256 of the operation,
 * its arguments (object keys sorted, so a client that orders them otherwise is the same request)
 * and its agent: the same id with another request is then told from a retry.
 */
export function requestKeyOf(header: string | undefined, request: { operation: string; args: unknown; agent: string | null }): RequestKey | undefined {
  if (header === undefined) return undefined;
  if (!REQUEST_ID.test(header)) {
    throw new DomainError('INVALID_ARGUMENT', 'Idempotency-Key must be one token of 1 to 128 letters, digits or . _ : - (a UUID fits)', { header: 'Idempotency-Key' });
  }
  const canonical = JSON.stringify([request.operation, sortedKeys(request.args), request.agent]);
  return { id: header, fingerprint: createHash('sha256').update(canonical).digest('hex') };
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, sortedKeys(record[key])]));
}
