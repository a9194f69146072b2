import { settle } from './exit-status.js';
import { FdWriter, onFirstUse } from './fd-writer.js';
import { main } from './main.js';

/**
 * Runs the whole command-line program on this process's argv and stdio (loaded by bin.ts); the
 * exit status goes to process.exitCode. Resolves once the command is done. Stdin and stderr are
 * set up only if a command uses them, and stdout is written directly (see FdWriter).
 */
export function run(argv: string[]): Promise<void> {
  return settle(
    main({
      argv,
      cwd: process.cwd(),
      env: process.env,
      stdin: onFirstUse(() => process.stdin),
      stdout: new FdWriter(1),
      stderr: onFirstUse(() => process.stderr),
    }),
  );
}
