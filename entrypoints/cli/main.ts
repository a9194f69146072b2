import { Cli } from 'clipanion';
import { DomainError } from '../../domain/errors.js';
import { closestTo, didYouMean } from '../../domain/suggestions.js';
import { runInCheckout } from '../compose.js';
import { answerOn, type AnswerOutput } from './answer.js';
import { commandAt, commandDeclarations } from './commands.js';
import type { TaskdagContext } from './context.js';
import type { CommandDeclaration } from './declared-command.js';
import { splitGlobalFlags } from './globals.js';
import { commandHelp, groupHelp, programHelp } from './help.js';
import { cliHostPorts } from './host-ports.js';
import { wordsNotTaken } from './words-not-taken.js';

declare const TASKDAG_VERSION: string;
const VERSION = typeof TASKDAG_VERSION === 'string' ? TASKDAG_VERSION : '0.0.0-dev';
const HELP_FLAGS = new Set(['-h', '--help']);

export interface Io {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream;
  stdout: AnswerOutput;
  stderr: NodeJS.WritableStream;
}

/** Runs one command line; resolves to the exit status. Every outcome but help/version is one JSON value. */
export async function main(io: Io): Promise<number> {
  const { globals, rest } = splitGlobalFlags(io.argv);
  if (rest.length === 1 && (rest[0] === '--version' || rest[0] === '-v')) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { emit, fail } = answerOn(io.stdout, globals);

  const commandWord = rest[0];
  if (commandWord === undefined) return fail(new DomainError('UNKNOWN_COMMAND', 'No command given: run taskdag --help', { command: null }));
  if (HELP_FLAGS.has(commandWord) || (commandWord === 'help' && rest.slice(1).every((word) => HELP_FLAGS.has(word)))) {
    io.stdout.write(programHelp(VERSION, commandDeclarations()));
    return 0;
  }
  if (commandWord === 'help') return helpOn(rest.slice(1), io, fail);
  const commandClass = commandAt(rest);
  if (commandClass === null) return asksForHelp(rest) && isGroupWord(commandWord) ? helpOn([commandWord], io, fail) : fail(unknownCommand(rest));
  const { declaration } = commandClass;
  if (asksForHelp(rest)) {
    io.stdout.write(commandHelp(declaration));
    return 0;
  }

  const words = rest.slice(declaration.name.split(' ').length);
  const context: TaskdagContext = {
    stdin: io.stdin as TaskdagContext['stdin'],
    stdout: io.stdout as TaskdagContext['stdout'],
    stderr: io.stderr as TaskdagContext['stderr'],
    env: io.env,
    colorDepth: 1,
    cwd: io.cwd,
    globals,
    run: (operation, args, agent) => runInCheckout({ cwd: io.cwd, env: io.env, project: globals.project }, { operation, args, agent, printed: true }, cliHostPorts),
    emit,
  };

  let command = commandClass.fromPlainWords?.(words, context) ?? null;
  if (command === null) {
    // Clipanion compiles a parser over every registered command on each run: registering only the
    // command the words name keeps that cost flat as the command set grows.
    const cli = new Cli<TaskdagContext>({ binaryLabel: 'taskdag', binaryName: 'taskdag', binaryVersion: VERSION, enableColors: false });
    cli.register(commandClass);
    try {
      command = cli.process(rest, context);
    } catch (error) {
      return fail(usageError(declaration, words, error));
    }
  }
  try {
    // A command that serves (mcp) may end with a status of its own; every other one returns nothing: 0.
    return await command.validateAndExecute();
  } catch (error) {
    return fail(isClipanionError(error) ? usageError(declaration, words, error) : error);
  }
}

/** `taskdag help <command>`: its page, the commands of a word (`help server`), or UNKNOWN_COMMAND. */
function helpOn(words: readonly string[], io: Io, fail: (error: unknown) => number): number {
  const named = commandDeclarations().find((declaration) => declaration.name === words.join(' '));
  const group = commandDeclarations().filter((declaration) => declaration.name.split(' ')[0] === words[0]);
  if (named === undefined && (words.length !== 1 || group.length === 0)) return fail(unknownCommand(words));
  io.stdout.write(named ? commandHelp(named) : groupHelp(words[0]!, group));
  return 0;
}

function isGroupWord(word: string): boolean {
  return commandDeclarations().some((declaration) => declaration.name.startsWith(`${word} `));
}

/**
 * UNKNOWN_COMMAND for words that name no command, with the closest commands in
 * `details.suggestions`: `tkae` → take; `server rnu` → server run; a command word alone
 * (`server`) lists the commands it starts.
 */
function unknownCommand(words: readonly string[]): DomainError {
  const names = commandDeclarations().map((declaration) => declaration.name);
  const group = names.filter((name) => name.startsWith(`${words[0]} `));
  if (group.length > 0 && (words.length === 1 || words[1]!.startsWith('-'))) {
    return new DomainError('UNKNOWN_COMMAND', `${words[0]} needs a command: ${group.join(', ')} (run taskdag help ${words[0]})`, {
      command: words[0],
      suggestions: group,
    });
  }
  // A two-word command is matched on two words, a three-word one on three.
  const wordsOf = (name: string) => name.split(' ').length;
  const suggestions =
    group.length > 0
      ? [...new Set(group.map(wordsOf))].flatMap((count) => closestTo(words.slice(0, count).join(' '), group.filter((name) => wordsOf(name) === count))).slice(0, 3)
      : closestTo(words[0]!, new Set(names.map((name) => name.split(' ')[0]!)));
  const spelled = words.slice(0, group.length > 0 ? Math.max(2, ...suggestions.map(wordsOf)) : 1).join(' ');
  return new DomainError('UNKNOWN_COMMAND', `Unknown command ${spelled}${didYouMean(suggestions)} (run taskdag --help)`, {
    command: spelled,
    ...(suggestions.length > 0 ? { suggestions } : {}),
  });
}

/** `-h` or `--help` anywhere among the command's own arguments (before a `--`). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => HELP_FLAGS.has(arg));
}

function isClipanionError(error: unknown): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'UsageError' || name === 'UnknownSyntaxError' || name === 'AmbiguousSyntaxError';
}

/**
 * A known command given words it does not take, or a malformed flag value. The words it does
 * not take are named as every driver names them (the same message and details as a batch item
 * or an HTTP body), plus `details.command`.
 */
function usageError(declaration: CommandDeclaration, words: readonly string[], error: unknown): DomainError {
  const command = declaration.name;
  const raw = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/^.*?Error: /, '');
  // Clipanion names some of these ("Unsupported option name") but not all ("Command not found").
  const named = wordsNotTaken(declaration, words);
  if (named !== null) return new DomainError(named.code, named.message, { ...named.details, command });
  return new DomainError('INVALID_ARGUMENT', `${raw} (see taskdag ${command} --help)`, { command });
}
