import { writeSync } from 'node:fs';

// Fixed at build time (scripts/build.mjs): the version, and the program's own `--help` output,
// captured from the bundled program so the two can never differ.
declare const TASKDAG_VERSION: string;
declare const TASKDAG_HELP: string;

/**
 * The executable. Agents call it hundreds of times per task, so it does only what the command
 * line needs: `--version` and `--help` are answered from text fixed at build time, and the
 * program (clipanion, every command, the store) is loaded only for a real command. The answers
 * go out through a plain write on fd 1, which skips setting up process.stdout as a stream.
 */
const argv = process.argv.slice(2);
const fixed = argv.length === 1 ? answers()[argv[0]!] : undefined;
if (fixed !== undefined) {
  writeAll(fixed);
} else {
  (require('./taskdag-cli.js') as typeof import('./program.js')).run(argv);
}

function answers(): Record<string, string> {
  const version = `${TASKDAG_VERSION}\n`;
  return { '--version': version, '-v': version, '--help': TASKDAG_HELP, '-h': TASKDAG_HELP };
}

/** All of `text` to fd 1, also when it is a full non-blocking pipe (a parent may share one). */
function writeAll(text: string): void {
  const bytes = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
