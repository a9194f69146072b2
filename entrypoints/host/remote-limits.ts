import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_REMOTE_RETRIES, DEFAULT_REMOTE_TIMEOUT_MS } from '../../adapters/remote/http-remote-dispatcher.js';
import type { RemoteLimits } from '../../adapters/remote/http-remote-connector.js';
import { DomainError } from '../../domain/errors.js';

/**
 * Past this an answer could not even be decoded: V8's longest string is just under 512 Mi
 * characters, and an answer is decoded to one string before it is parsed.
 */
const MAX_ANSWER_BYTES_CEILING = 512 * 1024 * 1024;

/** Ten retries already wait over four minutes between them: more is a client hung, not a client retrying. */
const MAX_RETRIES = 10;

/**
 * The remote client's limits (docs/remote.md): `TASKDAG_REMOTE_TIMEOUT_MS` (a whole number of
 * milliseconds), `TASKDAG_REMOTE_MAX_ANSWER_BYTES` (a whole number of bytes, up to 512 MiB) and
 * `TASKDAG_REMOTE_RETRIES` (0 to 10), each its default when unset or empty.
 */
export function remoteLimits(env: Record<string, string | undefined>): RemoteLimits {
  return {
    timeoutMs: wholeNumber(env, 'TASKDAG_REMOTE_TIMEOUT_MS', 'milliseconds', DEFAULT_REMOTE_TIMEOUT_MS, Number.MAX_SAFE_INTEGER),
    maxAnswerBytes: wholeNumber(env, 'TASKDAG_REMOTE_MAX_ANSWER_BYTES', 'bytes', DEFAULT_MAX_ANSWER_BYTES, MAX_ANSWER_BYTES_CEILING),
    retries: wholeNumber(env, 'TASKDAG_REMOTE_RETRIES', 'retries', DEFAULT_REMOTE_RETRIES, MAX_RETRIES, 0),
  };
}

function wholeNumber(env: Record<string, string | undefined>, key: string, unit: string, fallback: number, max: number, min = 1): number {
  const text = env[key];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    const range = max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : '';
    throw new DomainError('INVALID_ARGUMENT', `${key} is a whole number of ${unit}${range}, not ${text}`, { field: key, value: text });
  }
  return Number(text);
}
