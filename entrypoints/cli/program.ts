import { main } from './main.js';

/** Runs the whole command-line program on this process's argv and stdio (loaded by bin.ts). */
export function run(argv: string[]): void {
  main({
    argv,
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // main() turns every failure into an envelope; reaching here means writing it failed too.
      process.stderr.write(`taskdag: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
