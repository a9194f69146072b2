import { Cli } from 'clipanion';
import { DomainError } from '../../domain/errors.js';
import { allCommands, commandsNamed } from './commands.js';
import { runInCheckout } from '../compose.js';
import { errorEnvelope, exitCodeOf } from '../envelope.js';
import type { TaskdagContext } from './context.js';
import { splitGlobalFlags } from './globals.js';
import { cliHostPorts } from './host-ports.js';

declare const TASKDAG_VERSION: string;
const VERSION = typeof TASKDAG_VERSION === 'string' ? TASKDAG_VERSION : '0.0.0-dev';
const HELP_FLAGS = new Set(['-h', '--help']);

export interface Io {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream;
  /** All a command's output needs: a stream, or a plain descriptor writer (see FdWriter). */
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/** Runs one command line; resolves to the exit status. Every outcome but help/version is one JSON value. */
export async function main(io: Io): Promise<number> {
  const { globals, rest } = splitGlobalFlags(io.argv);
  if (rest.length === 1 && (rest[0] === '--version' || rest[0] === '-v')) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const write = (value: unknown) => io.stdout.write(JSON.stringify(value, null, io.stdout.isTTY ? 2 : undefined) + '\n');
  const fail = (error: unknown) => {
    const envelope = errorEnvelope(error);
    write(envelope);
    return exitCodeOf(envelope);
  };

  const commandWord = rest[0];
  if (commandWord === undefined) return fail(new DomainError('UNKNOWN_COMMAND', 'No command given: run taskdag --help', { command: null }));
  const globalHelp = HELP_FLAGS.has(commandWord);
  const named = globalHelp ? allCommands() : commandsNamed(commandWord);
  const commandClass = named[0];
  if (!commandClass) {
    return fail(new DomainError('UNKNOWN_COMMAND', `Unknown command ${commandWord}: run taskdag --help`, { command: commandWord }));
  }

  // Clipanion compiles a parser over every registered command on each run: registering only the
  // commands the first word names keeps that cost flat as the command set grows (global help
  // lists them all). Help is plain text for people and logs alike, so never colored.
  const cli = new Cli<TaskdagContext>({ binaryLabel: 'taskdag', binaryName: 'taskdag', binaryVersion: VERSION, enableColors: false });
  for (const command of named) cli.register(command);
  if (globalHelp) {
    io.stdout.write(cli.usage(null));
    return 0;
  }
  if (asksForHelp(rest)) {
    io.stdout.write(cli.usage(commandClass, { detailed: true }));
    return 0;
  }

  const context: TaskdagContext = {
    stdin: io.stdin as TaskdagContext['stdin'],
    stdout: io.stdout as TaskdagContext['stdout'],
    stderr: io.stderr as TaskdagContext['stderr'],
    env: io.env,
    colorDepth: 1,
    cwd: io.cwd,
    globals,
    run: (operation, args, agent) => runInCheckout({ cwd: io.cwd, env: io.env, project: globals.project }, { operation, args, agent }, cliHostPorts),
    emit: (value) => write(globals.noWarnings ? withoutWarnings(value) : value),
  };

  let command;
  try {
    command = cli.process(rest, context);
  } catch (error) {
    return fail(usageError(commandWord, error));
  }
  try {
    // A command that serves (mcp) may end with a status of its own; every other one returns nothing: 0.
    return await command.validateAndExecute();
  } catch (error) {
    return fail(isClipanionError(error) ? usageError(commandWord, error) : error);
  }
}

/** `-h` or `--help` anywhere among the command's own arguments (before a `--`). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => HELP_FLAGS.has(arg));
}

function withoutWarnings(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('warnings' in value)) return value;
  const { warnings: _warnings, ...rest } = value as Record<string, unknown>;
  return rest;
}

function isClipanionError(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'UsageError' || name === 'UnknownSyntaxError' || name === 'AmbiguousSyntaxError';
}

/** A known command with flags it does not take, or a malformed flag value. */
function usageError(command: string, error: unknown): DomainError {
  const raw = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/^.*?Error: /, '');
  // Clipanion says "Command not found" when the words after a known command match none of its forms.
  const message = raw.startsWith('Command not found')
    ? `taskdag ${command} does not take these arguments: an unknown option, an extra positional, or an option missing its value`
    : raw;
  return new DomainError('INVALID_ARGUMENT', `${message} (see taskdag ${command} --help)`, { command });
}
