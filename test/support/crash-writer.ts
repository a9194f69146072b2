/**
 * A writer process for the crash and concurrency proofs: it runs mutations one after another
 * through the CLI's own `main` (no process start per mutation, so a kill lands inside writes,
 * not inside Node's startup), and prints `ok <k>` once mutation k has been reported successful.
 * Writes to a pipe are synchronous on Linux, so a printed `ok` was reported before any kill.
 *
 *   node crash-writer.js <checkout> mutate <first>            mutations first, first+1, ... forever
 *   node crash-writer.js <checkout> count <first> <n> <prefix>  n add-tasks <prefix>-<k>
 *   node crash-writer.js <checkout> restore <first> <id>...     restores of the ids in turn, forever
 */
import { Readable } from 'node:stream';
import { main } from '../../entrypoints/cli/main.js';
import { mutation, type Mutation } from './mutations.js';

const [checkout, mode, first, ...rest] = process.argv.slice(2) as [string, string, string, ...string[]];

function planned(k: number): Mutation {
  switch (mode) {
    case 'mutate':
      return mutation(k);
    case 'count':
      return { argv: ['add-task', `${rest[1]}-${k}`, '--initiative', 'core', '--title', `task ${k}`, '--body', '', '--acceptance', 'a', '--blocked-by', '', '--as', rest[1]!] };
    case 'restore':
      return { argv: ['restore', rest[k % rest.length]!, '--as', 'writer'] };
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

async function run({ argv, input }: Mutation): Promise<{ code: number; output: string }> {
  let output = '';
  const sink = { write: (chunk: string) => ((output += chunk), true) } as unknown as NodeJS.WritableStream;
  const code = await main({ argv, cwd: checkout, env: process.env, stdin: Readable.from(input ? [input] : []), stdout: sink, stderr: sink });
  return { code, output };
}

async function writeForever(): Promise<void> {
  const last = mode === 'count' ? Number(first) + Number(rest[0]) - 1 : Infinity;
  process.stdout.write('ready\n');
  for (let k = Number(first); k <= last; k++) {
    const { code, output } = await run(planned(k));
    if (code !== 0) {
      process.stdout.write(`fail ${k} ${output}`);
      process.exit(1);
    }
    process.stdout.write(`ok ${k}\n`);
  }
}

void writeForever();
