import path from 'node:path';
import { codeCacheFor, loadWithCodeCache } from './code-cache.js';
import { writeAllSync } from './fd-writer.js';
import type * as Program from './program.js';

// Fixed at build time (scripts/build.mjs): the version, and the program's own `--help` output,
// captured from the bundled program so the two can never differ.
declare const TASKDAG_VERSION: string;
declare const TASKDAG_HELP: string;
/** The commands that only read a project's graph (scripts/build.mjs): they start from the `reads` code cache. */
declare const TASKDAG_READ_COMMANDS: readonly string[];

/**
 * The executable. Agents call it hundreds of times per task, so it does only what the command
 * line needs: `--version` and `--help` are answered from text fixed at build time, and the
 * program (clipanion, every command, the store) is loaded only for a real command, with the V8
 * code cache the build made for its kind of command. The fixed answers go out through a plain write on fd 1,
 * which skips setting up process.stdout as a stream.
 */
const argv = process.argv.slice(2);
const fixed = argv.length === 1 ? answers().get(argv[0]!) : undefined;
if (fixed !== undefined) {
  writeAllSync(1, fixed);
} else {
  const cache = codeCacheFor(argv, new Set(TASKDAG_READ_COMMANDS));
  loadWithCodeCache<typeof Program>(path.join(__dirname, 'taskdag-cli.js'), require, cache).exports.run(argv);
}

/** A Map, so that a command word such as `constructor` is never found on Object.prototype. */
function answers(): Map<string, string> {
  const version = `${TASKDAG_VERSION}\n`;
  return new Map([
    ['--version', version],
    ['-v', version],
    ['--help', TASKDAG_HELP],
    ['-h', TASKDAG_HELP],
    ['help', TASKDAG_HELP],
  ]);
}
