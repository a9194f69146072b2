import { flagOf, optional, text, unknownArgument, type Argument, type ArgsSpec } from '../../application/args.js';
import { DomainError } from '../../domain/errors.js';
import { commandLineArgs, type CommandDeclaration } from './declared-command.js';

/**
 * What in `words` (those after the command's name) the command does not take, when clipanion
 * found no form of it that fits (it says only "Command not found"): the first option it does
 * not take, named with the closest it does, as every driver names an argument it does not know;
 * an option missing its value; or a word beyond its positionals. Null when none of these is the
 * cause.
 */
export function wordsNotTaken(declaration: CommandDeclaration, words: readonly string[]): DomainError | null {
  // `--as` is a global flag too, taken after any command (only commands with an agent list it).
  const spec: ArgsSpec = { as: optional(text(), 'Agent identity'), ...commandLineArgs(declaration) };
  const flags = new Map(Object.entries(spec).filter(([, field]) => !field.positional).map(([key, field]) => [flagOf(key), field]));
  const positionals = Object.entries(declaration.args).filter(([, field]) => field.positional);
  const takesEveryWord = positionals.some(([, field]) => field.positional === 'rest');
  let given = 0;
  let optionsEnded = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    if (word === '--' && !optionsEnded) {
      optionsEnded = true;
      continue;
    }
    if (!optionsEnded && isOption(word)) {
      const [name, inline] = splitInline(word);
      const field = flags.get(name);
      if (!field) return notTaken(declaration.name, name, spec);
      if (inline !== undefined || field.standalone) continue;
      const value = words[index + 1];
      if (value === undefined || (isOption(value) && value.startsWith('--'))) {
        return new DomainError('INVALID_ARGUMENT', `${name} needs a value`, { operation: declaration.name, flag: name });
      }
      index++;
      continue;
    }
    given++;
    if (takesEveryWord || given <= positionals.length) continue;
    const before = words[index - 1];
    if ((word === 'true' || word === 'false') && before !== undefined && flags.get(before)?.standalone) {
      return new DomainError('INVALID_ARGUMENT', `${before} stands alone or takes =true or =false: write ${before}=${word}`, {
        operation: declaration.name,
        flag: before,
        word,
      });
    }
    return extraWord(declaration, word, positionals);
  }
  return null;
}

function isOption(word: string): boolean {
  return word.startsWith('-') && word.length > 1 && !/^-\d/.test(word);
}

function splitInline(word: string): [string, string | undefined] {
  const at = word.indexOf('=');
  return word.startsWith('--') && at > 0 ? [word.slice(0, at), word.slice(at + 1)] : [word, undefined];
}

/** A long option is an argument the operation does not know; a short one (`-x`) has no argument to be. */
function notTaken(operation: string, name: string, spec: ArgsSpec): DomainError {
  if (name.startsWith('--')) return unknownArgument(operation, name.slice(2).replace(/-/g, '_'), spec);
  return new DomainError('INVALID_ARGUMENT', `${operation} does not take ${name}`, { operation, flag: name });
}

function extraWord(declaration: CommandDeclaration, word: string, positionals: [string, Argument<unknown>][]): DomainError {
  const takes = positionals.length === 0 ? 'no word after its name, only options' : positionals.map(([key]) => `<${key}>`).join(' ');
  return new DomainError('INVALID_ARGUMENT', `${declaration.name} takes ${takes}: ${JSON.stringify(word)} is one word too many (quote a value that has spaces)`, {
    operation: declaration.name,
    word,
  });
}
