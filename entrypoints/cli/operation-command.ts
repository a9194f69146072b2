import { Option } from 'clipanion';
import { flagOf, type Argument } from '../../application/args.js';
import type { Operation } from '../../application/operation.js';
import { DOCUMENT_ARGS, usageOf, type CommandDeclaration, type DeclaredCommand } from './declared-command.js';
import { readDocument } from './document-input.js';
import type { Occurrence } from './flags.js';
import type { TaskdagContext } from './context.js';
import { fieldsOf, operationArgs, optionsByName, plainOptions, takesRest, type WordOption } from './operation-words.js';
import { TaskdagCommand } from './taskdag-command.js';

/**
 * The command of an operation, derived from its declaration: its path, its help (summary,
 * details, the declared examples), a flag per named argument and its positionals. Running it
 * turns the words typed into the operation's arguments and hands them over; the operation's own
 * validation then speaks for every driver alike.
 */
export function commandFor(operation: Operation): DeclaredCommand {
  const { flags, positionals } = fieldsOf(operation);
  let wordOptions: Map<string, WordOption> | undefined;

  class OperationCommand extends TaskdagCommand {
    static readonly declaration: CommandDeclaration = operation;
    static override paths = [operation.name.split(' ')];
    static override usage = usageOf(operation);

    /**
     * The command for plain words, read without clipanion (see plainOptions); null when the
     * words need clipanion's parser.
     */
    static fromPlainWords(words: readonly string[], context: TaskdagContext): OperationCommand | null {
      wordOptions ??= optionsByName(operation, flags);
      const options = plainOptions(words, wordOptions, positionals);
      if (options === null) return null;
      const command = Object.assign(new OperationCommand(), options);
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
      if (takesRest(positionals)) options.words = Option.Rest({ name: positionals.map(([key]) => key).join('> <') });
      else for (const [key] of positionals) options[`positional:${key}`] = Option.String({ required: false, name: key });
    }

    async execute() {
      const options = this as unknown as Record<string, unknown>;
      const args = operation.argsFromDocument
        ? Object.assign(await readDocument(this.context, options.file as Occurrence[], options.stdin as Occurrence[]), operationArgs([], positionals, options))
        : operationArgs(flags, positionals, options);
      await this.perform(operation.name, args);
    }
  }
  return OperationCommand;
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
