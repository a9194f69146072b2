import { DomainError } from '../domain/errors.js';

/**
 * Wraps an OS failure as STORAGE_ERROR, keeping its code in `details.cause`. Anything else (a
 * DomainError already, or a bug such as a TypeError) is returned as it is: a bug must never pass
 * for an unreadable state, which `init` would replace.
 */
export function storageError(message: string, error: unknown, details: Record<string, unknown> = {}): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof DomainError || typeof code !== 'string') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('STORAGE_ERROR', `${message}: ${reason}`, { ...details, cause: code });
}

/** A format problem found in a file we read (not an OS error). */
export function invalidFile(path: string, problem: string): DomainError {
  return new DomainError('STORAGE_ERROR', `${path} is not valid taskdag state: ${problem}`, {
    cause: 'EINVALID',
    path,
    problem,
  });
}
