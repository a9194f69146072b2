import { flagOf, type Argument } from '../../application/args.js';
import type { Operation } from '../../application/operation.js';
import { argumentFromFlag, type Occurrence } from './flags.js';

type Fields = [string, Argument<unknown>][];

/**
 * An operation's command-line words as its command's options hold them: `as` (the command's own
 * `--as`, its last occurrence), `flag:<key>` (every occurrence of a flag, in order), and the
 * positionals as `positional:<key>`, or all of them as `words` when the last one takes the rest.
 */
export type CommandOptions = Record<string, unknown>;

/** An operation's flags (named arguments) and positionals, in their declared order. */
export function fieldsOf(operation: Operation): { flags: Fields; positionals: Fields } {
  const fields = Object.entries(operation.args) as Fields;
  return { flags: fields.filter(([, field]) => !field.positional), positionals: fields.filter(([, field]) => field.positional) };
}

/** Whether the last positional takes every remaining word (`add-note <id> <text...>`). */
export function takesRest(positionals: Fields): boolean {
  return positionals.some(([, field]) => field.positional === 'rest');
}

/** A flag as the command line takes it: the command's option key it fills, and whether it stands alone. */
export interface WordOption {
  key: string;
  standalone: boolean;
}

/** The command's flags by name (`--title`), each with the option key clipanion would fill. */
export function optionsByName(operation: Operation, flags: Fields): Map<string, WordOption> {
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
 * The options of an operation's command for `words` read as plain words (see readPlainWords),
 * or null when they need clipanion's parser: a word that is not plain, or more positionals than
 * the command takes. `options` is optionsByName's, made once per command.
 */
export function plainOptions(words: readonly string[], options: ReadonlyMap<string, WordOption>, positionals: Fields): CommandOptions | null {
  const read = readPlainWords(words, options);
  if (read === null || (!takesRest(positionals) && read.positionals.length > positionals.length)) return null;
  const values: CommandOptions = {};
  for (const [key, occurrences] of read.occurrences) values[key] = key === 'as' ? occurrences.at(-1) : occurrences;
  if (takesRest(positionals)) values.words = read.positionals;
  else positionals.forEach(([key], index) => (values[`positional:${key}`] = read.positionals[index]));
  return values;
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

/**
 * The operation's arguments from its command's options (an operation whose arguments are not one
 * JSON document): each flag's occurrences turned into its value, then the positionals.
 */
export function operationArgs(flags: Fields, positionals: Fields, options: CommandOptions): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(flags.map(([key, field]) => [key, argumentFromFlag(key, field, options[`flag:${key}`] as Occurrence[])]));
  return Object.assign(args, takesRest(positionals) ? spread(positionals, options.words as string[]) : named(positionals, options));
}

function named(positionals: Fields, options: CommandOptions): Record<string, unknown> {
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
