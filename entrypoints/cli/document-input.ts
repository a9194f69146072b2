import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DomainError } from '../../domain/errors.js';
import type { TaskdagContext } from './context.js';
import type { Occurrence } from './flags.js';

/**
 * The arguments of an operation that takes one JSON document (a batch): from `--file <path>`
 * or `--stdin`, exactly one of the two.
 */
export async function readDocument(context: TaskdagContext, file: Occurrence[], stdin: Occurrence[]): Promise<Record<string, unknown>> {
  if (file.length > 1 || stdin.length > 1) {
    throw new DomainError('INVALID_ARGUMENT', 'Give --file or --stdin once', { flags: ['--file', '--stdin'] });
  }
  const fromStdin = stdin.length === 1 && stdin[0] !== false && stdin[0] !== 'false';
  if (fromStdin === (file.length === 1)) {
    const code = fromStdin ? 'INVALID_ARGUMENT' : 'MISSING_FIELD';
    throw new DomainError(code, 'Give exactly one of --file <path> and --stdin', { flags: ['--file', '--stdin'] });
  }
  return parseDocument(fromStdin ? await readAll(context.stdin) : await readNamedFile(context.cwd, file[0]!));
}

async function readNamedFile(cwd: string, name: Occurrence): Promise<string> {
  if (typeof name !== 'string') throw new DomainError('INVALID_ARGUMENT', '--file needs a path', { flag: '--file' });
  const file = path.resolve(cwd, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `Cannot read ${file}: ${(error as Error).message}`, {
      flag: '--file',
      path: file,
      cause: (error as NodeJS.ErrnoException).code ?? null,
    });
  }
}

function parseDocument(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `The input is not JSON: ${(error as Error).message}`, {});
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError('INVALID_ARGUMENT', 'The input must be a JSON object of arguments, e.g. {"operations": [...]}', {});
  }
  return value as Record<string, unknown>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
