import { Option } from 'clipanion';
import { flagOf, type Argument } from '../../application/args.js';
import type { Operation } from '../../application/operation.js';
import { DOCUMENT_ARGS, usageOf, type CommandDeclaration, type DeclaredCommand } from './declared-command.js';
import { readDocument } from './document-input.js';
import { argumentFromFlag, type Occurrence } from './flags.js';
import type { TaskdagContext } from './context.js';
import { TaskdagCommand } from './taskdag-command.js';

type Fields = [string, Argument<unknown>][];

/**
 * The command of an operation, derived from its declaration: its path, its help (summary,
 * details, the declared examples), a flag per named argument and its positionals. Running it
 * turns the words typed into the operation's arguments and hands them over; the operation's own
 * validation then speaks for every driver alike.
 */
export function commandFor(operation: Operation): DeclaredCommand {
  const fields = Object.entries(operation.args) as Fields;
  const flags = fields.filter(([, field]) => !field.positional);
  const positionals = fields.filter(([, field]) => field.positional);
  const restAt = positionals.findIndex(([, field]) => field.positional === 'rest');
  let wordOptions: Map<string, WordOption> | undefined;

  class OperationCommand extends TaskdagCommand {
    static readonly declaration: CommandDeclaration = operation;
    static override paths = [operation.name.split(' ')];
    static override usage = usageOf(operation);

    /**
     * The command for plain words, read without clipanion (see readPlainWords); null when the
     * words need clipanion's parser.
     */
    static fromPlainWords(words: readonly string[], context: TaskdagContext): OperationCommand | null {
      wordOptions ??= optionsByName(operation, flags);
      const read = readPlainWords(words, wordOptions);
      if (read === null || (restAt < 0 && read.positionals.length > positionals.length)) return null;
      const command = new OperationCommand();
      const options = command as unknown as Record<string, unknown>;
      for (const [key, occurrences] of read.occurrences) options[key] = key === 'as' ? occurrences.at(-1) : occurrences;
      if (restAt >= 0) options.words = read.positionals;
      else positionals.forEach(([key], index) => (options[`positional:${key}`] = read.positionals[index]));
      command.context = context;
      command.path = [...OperationCommand.paths[0]!];
      return command;
    }

    constructor() {
      super();
      const options = this as unknown as Record<string, unknown>;
      if (operation.argsFromDocument) {
        options.file = occurrences('--file', DOCUMENT_ARGS.file.description, false);
        options.stdin = occurrences('--stdin', DOCUMENT_ARGS.stdin.description, true);
      } else {
        for (const [key, field] of flags) options[`flag:${key}`] = occurrences(flagOf(key), describe(field), field.standalone === true);
      }
      // One rest list when the last positional takes every remaining word: clipanion fills an
      // optional positional last, so `add-note <id> <text...>` could not be two options.
      if (restAt >= 0) options.words = Option.Rest({ name: positionals.map(([key]) => key).join('> <') });
      else for (const [key] of positionals) options[`positional:${key}`] = Option.String({ required: false, name: key });
    }

    async execute() {
      const options = this as unknown as Record<string, unknown>;
      const args = operation.argsFromDocument
        ? await readDocument(this.context, options.file as Occurrence[], options.stdin as Occurrence[])
        : Object.fromEntries(flags.map(([key, field]) => [key, argumentFromFlag(key, field, options[`flag:${key}`] as Occurrence[])]));
      Object.assign(args, restAt >= 0 ? spread(positionals, options.words as string[]) : named(positionals, options));
      await this.perform(operation.name, args);
    }
  }
  return OperationCommand;
}

/** A flag as the command line takes it: the command's option key it fills, and whether it stands alone. */
interface WordOption {
  key: string;
  standalone: boolean;
}

/** The command's flags by name (`--title`), each with the option key clipanion would fill. */
function optionsByName(operation: Operation, flags: Fields): Map<string, WordOption> {
  const options = new Map<string, WordOption>([['--as', { key: 'as', standalone: false }]]);
  if (operation.argsFromDocument) {
    options.set('--file', { key: 'file', standalone: false });
    options.set('--stdin', { key: 'stdin', standalone: true });
  } else {
    for (const [key, field] of flags) options.set(flagOf(key), { key: `flag:${key}`, standalone: field.standalone === true });
  }
  return options;
}

/**
 * Reads a command's words when every one is plain: a declared flag followed by its value
 * (`--title x`) or bound to it (`--title=x`), a standalone flag alone (`--all`), or a word that
 * does not start with `-` (a positional). Each option key gets its values in the order given, as
 * clipanion's parser gives them; null for any other word (an unknown or negated flag, `--`, a
 * value starting with `-`, a missing value), which clipanion then parses and names. Building and
 * running clipanion's parser costs about a millisecond and a half of every command line
 * (BENCHMARKS.md); test/e2e/plain-words.spec.ts holds both readings equal.
 */
export function readPlainWords(words: readonly string[], options: ReadonlyMap<string, WordOption>): { occurrences: Map<string, Occurrence[]>; positionals: string[] } | null {
  const occurrences = new Map<string, Occurrence[]>([...options.values()].map(({ key }) => [key, []]));
  const positionals: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (!word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    const bound = word.indexOf('=');
    const option = options.get(bound > 0 ? word.slice(0, bound) : word);
    if (option === undefined) return null;
    let value: Occurrence;
    if (bound > 0) {
      if (option.standalone) return null;
      value = word.slice(bound + 1);
    } else if (option.standalone) {
      value = true;
    } else {
      const next = words[++index];
      if (next === undefined || next.startsWith('-')) return null;
      value = next;
    }
    occurrences.get(option.key)!.push(value);
  }
  return { occurrences, positionals };
}

/** Every time a flag was given, in order, so a repeat is seen rather than silently overwritten. */
function occurrences(name: string, description: string, standalone: boolean): Occurrence[] {
  return Option.makeCommandOption({
    definition(builder) {
      builder.addOption({ names: [name], arity: standalone ? 0 : 1, description, hidden: false, required: false, allowBinding: true });
    },
    transformer(_builder, _key, state) {
      return state.options.filter((option) => option.name === name).map((option) => option.value as Occurrence);
    },
  });
}

function describe(field: Argument<unknown>): string {
  return field.required ? `${field.description} (required)` : field.description;
}

function named(positionals: Fields, options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(positionals.map(([key]) => [key, options[`positional:${key}`]]));
}

/** The words of `<a> <b> <rest...>`: one each to the leading positionals, all the others joined. */
function spread(positionals: Fields, words: readonly string[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  positionals.forEach(([key, field], index) => {
    if (field.positional === 'rest') {
      const rest = words.slice(index);
      args[key] = rest.length > 0 ? rest.join(' ') : undefined;
    } else {
      args[key] = words[index];
    }
  });
  return args;
}
