import { Command, Option } from 'clipanion';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../../domain/errors.js';
import { bool } from '../flags.js';
import { TaskdagCommand } from '../taskdag-command.js';

export class BatchCommand extends TaskdagCommand {
  static override paths = [['batch']];
  static override usage = Command.Usage({
    description: 'Apply a list of operations atomically: all of them, or none (see docs/batch.md)',
    details: 'The batch is a JSON object `{"operations": [{"op": "add-task", "args": {...}}, ...]}`; `args` are the same as the command\'s flags, in snake_case. A failing item aborts the batch with BATCH_OPERATION_FAILED and its index.',
    examples: [
      ['Apply a batch file', '$0 batch --file plan.json --as alice'],
      ['Apply a batch from a pipe', 'cat plan.json | $0 batch --stdin --as alice'],
      [
        'Apply a one-line batch',
        'echo \'{"operations":[{"op":"add-note","args":{"id":"T-invoice-api","text":"Planned in a batch"}}]}\' | $0 batch --stdin --as alice',
      ],
    ],
  });

  file = Option.String('--file', { description: 'Path of the batch file' });
  stdin = Option.String('--stdin', { tolerateBoolean: true, description: 'Read the batch from standard input' });

  async execute() {
    await this.perform('batch', parseBatch(await this.readBatch()));
  }

  private async readBatch(): Promise<string> {
    const fromStdin = bool('--stdin', this.stdin) === true;
    if (fromStdin === (this.file !== undefined)) {
      const code = fromStdin ? 'INVALID_ARGUMENT' : 'MISSING_FIELD';
      throw new DomainError(code, 'batch takes exactly one of --file <path> and --stdin', { flags: ['--file', '--stdin'] });
    }
    if (fromStdin) return readAll(this.context.stdin);
    const file = path.resolve(this.context.cwd, this.file!);
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new DomainError('INVALID_ARGUMENT', `Cannot read the batch file ${file}: ${(error as Error).message}`, {
        flag: '--file',
        path: file,
        cause: (error as NodeJS.ErrnoException).code ?? null,
      });
    }
  }
}

function parseBatch(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `The batch is not JSON: ${(error as Error).message}`, {});
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DomainError('INVALID_ARGUMENT', 'A batch is a JSON object {"operations": [...]}', {});
  }
  return value as Record<string, unknown>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
