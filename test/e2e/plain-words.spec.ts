import { expect } from 'chai';
import { Cli } from 'clipanion';
import { flagOf } from '../../application/args.js';
import { allCommands } from '../../entrypoints/cli/commands.js';
import type { TaskdagContext } from '../../entrypoints/cli/context.js';
import type { DeclaredCommand } from '../../entrypoints/cli/declared-command.js';

type Command = ReturnType<typeof allCommands>[number];

const context = { env: {}, colorDepth: 1, cwd: '/', globals: { noWarnings: false } } as unknown as TaskdagContext;
/** The keys a command's options fill: its flags, positionals, rest words, document flags and --as. */
const OPTION_KEY = /^(flag:.*|positional:.*|words|file|stdin|as)$/;

/** What clipanion's own parser makes of the words: every option key's value, or its error. */
function clipanionReading(command: Command, words: readonly string[]): Record<string, unknown> | { error: string } {
  const cli = new Cli<TaskdagContext>({ binaryName: 'taskdag', enableColors: false });
  cli.register(command);
  try {
    return optionValues(cli.process([...command.paths![0]!, ...words], context));
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function optionValues(command: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(command).filter(([key]) => OPTION_KEY.test(key)));
}

/** The flags a command takes on its command line, each with whether it stands alone. */
function flagsOf(command: Command): [string, boolean][] {
  const { declaration } = command;
  const own: [string, boolean][] = declaration.argsFromDocument
    ? [['--file', false], ['--stdin', true]]
    : Object.entries(declaration.args)
        .filter(([, field]) => !field.positional)
        .map(([key, field]) => [flagOf(key), field.standalone === true]);
  return [...own, ['--as', false]];
}

/** Word lists that are plain (the command reads them itself) and lists that need clipanion. */
function wordLists(command: Command): { plain: string[][]; other: string[][] } {
  const positionals = Object.values(command.declaration.args).filter((field) => field.positional).length;
  const given = Array.from({ length: positionals }, (_, index) => `p${index}`);
  const plain: string[][] = [[], given, given.slice(0, 1)];
  const other: string[][] = [['--'], ['-'], ['-x'], ['--unknown', 'v'], [...given, 'extra', 'more'], [...given, '--', '--as']];
  for (const [flag, standalone] of flagsOf(command)) {
    if (standalone) {
      plain.push([flag], [...given, flag], [flag, flag]);
      other.push([`${flag}=true`], [`--no-${flag.slice(2)}`]);
    } else {
      plain.push([flag, 'v'], [`${flag}=v`], [`${flag}=`], [flag, ''], [flag, 'a=b'], [flag, 'a', ...given, `${flag}=b`], [...given, flag, 'v']);
      other.push([flag], [flag, '-x'], [flag, '--as'], [flag, '-'], [`--no-${flag.slice(2)}`]);
    }
  }
  return { plain, other };
}

describe('the command line\'s reading of plain words (issue 28: start-up)', () => {
  const operationCommands = allCommands().filter((command) => (command as DeclaredCommand).fromPlainWords !== undefined);

  it('is offered by every operation\'s command', () => {
    expect(operationCommands.length).to.be.greaterThan(40);
    expect(operationCommands.map((command) => command.declaration.name)).to.include.members(['show', 'take', 'add-task', 'add-note', 'batch', 'status']);
  });

  it('reads every plain word list as clipanion does, and leaves every other list to clipanion', () => {
    for (const command of operationCommands) {
      const { plain, other } = wordLists(command);
      for (const words of plain) {
        const label = `${command.declaration.name} ${JSON.stringify(words)}`;
        const read = (command as DeclaredCommand).fromPlainWords!(words, context);
        expect(read, label).to.not.equal(null);
        expect(optionValues(read!), label).to.deep.equal(clipanionReading(command, words));
        expect(read!.context, label).to.equal(context);
        expect(read!.path, label).to.deep.equal(command.paths![0]);
      }
      for (const words of other) {
        const label = `${command.declaration.name} ${JSON.stringify(words)}`;
        const read = (command as DeclaredCommand).fromPlainWords!(words, context);
        if (read !== null) expect(optionValues(read), label).to.deep.equal(clipanionReading(command, words));
      }
    }
  });
});
