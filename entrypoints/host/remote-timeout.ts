import { DEFAULT_REMOTE_TIMEOUT_MS } from '../../adapters/remote/http-remote-dispatcher.js';
import { DomainError } from '../../domain/errors.js';

/** `TASKDAG_REMOTE_TIMEOUT_MS` (a whole number of milliseconds), else the default (docs/remote.md). */
export function remoteTimeoutMs(env: Record<string, string | undefined>): number {
  const text = env.TASKDAG_REMOTE_TIMEOUT_MS;
  if (text === undefined || text === '') return DEFAULT_REMOTE_TIMEOUT_MS;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new DomainError('INVALID_ARGUMENT', `TASKDAG_REMOTE_TIMEOUT_MS is a whole number of milliseconds, not ${text}`, { field: 'TASKDAG_REMOTE_TIMEOUT_MS', value: text });
  }
  return Number(text);
}
