import { DomainError } from '../domain/errors.js';

/** Wraps an OS or format failure as STORAGE_ERROR, keeping the original code in `details.cause`. */
export function storageError(message: string, error: unknown, details: Record<string, unknown> = {}): DomainError {
  if (error instanceof DomainError) return error;
  const cause = (error as NodeJS.ErrnoException | undefined)?.code ?? 'EINVALID';
  const reason = error instanceof Error ? error.message : String(error);
  return new DomainError('STORAGE_ERROR', `${message}: ${reason}`, { ...details, cause });
}

/** A format problem found in a file we read (not an OS error). */
export function invalidFile(path: string, problem: string): DomainError {
  return new DomainError('STORAGE_ERROR', `${path} is not valid taskdag state: ${problem}`, {
    cause: 'EINVALID',
    path,
    problem,
  });
}
