import { readFileSync } from 'node:fs';
import path from 'node:path';
import { codeCacheFor, loadWithCodeCache } from './code-cache.js';
import { writeAllSync } from './fd-writer.js';
import { splitGlobalFlags } from './globals.js';
import type * as GraphReads from './graph-reads.js';
import type * as PointCommands from './point-commands.js';
import type * as Program from './program.js';

// Fixed at build time (scripts/build.mjs): the version. The program's own `--help` output is
// captured from the bundled program into HELP_FILE, so the two can never differ.
declare const TASKDAG_VERSION: string;
/** The commands that only read a project's graph (scripts/build.mjs): they start from the `reads` code cache. */
declare const TASKDAG_READ_COMMANDS: readonly string[];
/** The commands of the graph reads' own program, dist/taskdag-reads.js (entrypoints/cli/graph-reads.ts). */
declare const TASKDAG_GRAPH_READS: readonly string[];
/** The commands of the point commands' own program, dist/taskdag-point.js (entrypoints/cli/point-commands.ts). */
declare const TASKDAG_POINT_COMMANDS: readonly string[];

/**
 * The help the build wrote beside the executable (scripts/build.mjs). Node compiles all of this
 * file before any command runs, so the 8 KB of text are read only when asked for; without the
 * file (a copy of the executable alone), the whole program prints the same text.
 */
const HELP_FILE = 'taskdag-help.txt';

/**
 * What a command line of one word is answered with, without a program (undefined: the program
 * answers). A Map, so that a command word such as `constructor` is never found on Object.prototype.
 */
const FIXED_ANSWERS: ReadonlyMap<string, () => string | undefined> = new Map([
  ['--version', () => `${TASKDAG_VERSION}\n`],
  ['-v', () => `${TASKDAG_VERSION}\n`],
  ['--help', help],
  ['-h', help],
  ['help', help],
]);

/**
 * The executable. Agents call it hundreds of times per task, so it does only what the command
 * line needs: `--version` and `--help` are answered from text fixed at build time; a graph read
 * (`show`, `status`, ...) loads the graph reads' program and a point command (`update`, `take`,
 * `context`, ...) the point commands' program, each of which hands any line it does not serve
 * to the whole program; any other command loads the whole program (clipanion, every command,
 * the store). Each program starts from the V8 code cache the build made for its kind of
 * command, the graph reads' and the point commands' programs from that of the command itself.
 * The fixed answers go out through a plain write on fd 1, which skips setting up process.stdout
 * as a stream.
 */
const argv = process.argv.slice(2);
const fixed = argv.length === 1 ? FIXED_ANSWERS.get(argv[0]!)?.() : undefined;
if (fixed !== undefined) writeAllSync(1, fixed);
else if (!hasWorkingDirectory()) answerWithoutWorkingDirectory();
else runLine(argv);

/**
 * Runs the line in the program of its own that serves it, or the whole program. A program of its
 * own has answered, synchronously and durably, once its promise settles: the process ends there
 * (its exit event still runs), not after Node has drained what V8 left queued (a young-generation
 * collection V8 scheduled as the heap filled, 1.6 M instructions after a `take` at 50k nodes) and
 * freed the heap. The whole program may go on serving after its own promise settles (`server run`,
 * `mcp`): it ends as Node ends it.
 */
function runLine(line: string[]): void {
  const program = programOf(splitGlobalFlags(line).rest[0]);
  if (program === null) {
    void wholeProgram(line);
    return;
  }
  let handedOn = false;
  const whole = (rest: string[]) => {
    handedOn = true;
    return wholeProgram(rest);
  };
  void program.run(line, whole).then(() => {
    if (!handedOn) endNow();
  });
}

/**
 * Ends the process with the exit status the command set: its exit event, then Node's own ending
 * (`process.reallyExit`, which `process.exit` ends with). `process.exit` runs some of Node's
 * JavaScript first, compiled on its first call: about 0.5 M instructions, as much as the ending
 * saves where V8 left nothing queued (a 10k-node `take`).
 */
function endNow(): void {
  const code = typeof process.exitCode === 'number' ? process.exitCode : 0;
  const { reallyExit } = process as unknown as { reallyExit?: (code: number) => never };
  if (typeof reallyExit !== 'function') process.exit();
  process.emit('exit', code);
  reallyExit.call(process, code);
}

/**
 * Whether the process has a working directory: one removed while a shell stood in it has none, and
 * every program reads it first (where the checkout is), which then threw out of the program with
 * a stack trace on stderr and nothing on stdout.
 */
function hasWorkingDirectory(): boolean {
  try {
    process.cwd();
    return true;
  } catch {
    return false;
  }
}

/** The answer without a working directory: a STORAGE_ERROR envelope, as the programs write one (without loading them). */
function answerWithoutWorkingDirectory(): void {
  const error = { code: 'STORAGE_ERROR', message: 'The current directory no longer exists: cd into a checkout (or any directory) and run the command again', details: { cause: 'ENOENT' } };
  writeAllSync(1, `${JSON.stringify({ ok: false, error })}\n`);
  process.exitCode = 1;
}

/** The program of its own that serves `command`, if one does (and is there). */
function programOf(command: string | undefined): typeof GraphReads | typeof PointCommands | null {
  if (command === undefined) return null;
  // A program starts from the code cache of the command it runs: V8 deserializes the whole cache, so
  // one warmed by other commands too costs more.
  if (new Set(TASKDAG_GRAPH_READS).has(command)) return programBeside<typeof GraphReads>('taskdag-reads.js', command);
  if (new Set(TASKDAG_POINT_COMMANDS).has(command)) return programBeside<typeof PointCommands>('taskdag-point.js', command);
  return null;
}

/**
 * The program `name` next to the executable, started from its code cache `cache`; null beside a
 * whole program alone (a copy of the executable made before it existed).
 */
function programBeside<T>(name: string, cache: string): T | null {
  const file = path.join(__dirname, name);
  try {
    return loadWithCodeCache<T>(file, require, cache).exports;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && (error as NodeJS.ErrnoException).path === file) return null;
    throw error;
  }
}

function wholeProgram(line: string[]): Promise<void> {
  const cache = codeCacheFor(line, new Set(TASKDAG_READ_COMMANDS));
  return loadWithCodeCache<typeof Program>(path.join(__dirname, 'taskdag-cli.js'), require, cache).exports.run(line);
}

/** The help text, or undefined without its file (the whole program then answers). */
function help(): string | undefined {
  try {
    return readFileSync(path.join(__dirname, HELP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}
