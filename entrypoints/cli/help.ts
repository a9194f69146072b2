import { placeholderOf, spellingOf, type Argument } from '../../application/args.js';
import { commandLineArgs, type CommandDeclaration } from './declared-command.js';

/**
 * The top-level help's sections: the commands by what people do with them, in the order they
 * meet them. Every command is in exactly one (test/entrypoints/cli/help.spec.ts).
 */
export const HELP_GROUPS: readonly { title: string; commands: readonly string[] }[] = [
  { title: 'Work the graph', commands: ['status', 'context', 'next', 'take', 'renew', 'release', 'submit', 'accept', 'reject', 'resolve', 'add-note'] },
  {
    title: 'Create and change',
    commands: ['init', 'add-initiative', 'add-task', 'add-gate', 'add-knowledge', 'update', 'add-edge', 'remove-edge', 'add-node', 'batch'],
  },
  { title: 'Read', commands: ['show', 'search', 'history', 'initiatives', 'state', 'urls', 'ui'] },
  { title: 'Recover', commands: ['sweep-leases', 'cancel', 'reopen', 'deprecate-knowledge', 'snapshots', 'restore', 'migrate'] },
  {
    title: 'Server',
    commands: ['server init', 'server setup', 'server doctor', 'server run', 'server credential add', 'server credential list', 'server credential remove'],
  },
  { title: 'Remote (a checkout linked to a server)', commands: ['link', 'login', 'logout', 'push', 'pull'] },
  { title: 'Agents and policy', commands: ['mcp', 'onboard', 'plugin add', 'plugin list', 'plugin set-data', 'plugin remove'] },
];

const WIDTH = 100;
type Fields = [string, Argument<unknown>][];

/** `taskdag --help`: every command, grouped, with its positionals and summary. */
export function programHelp(version: string, declarations: readonly CommandDeclaration[]): string {
  const byName = new Map(declarations.map((declaration) => [declaration.name, declaration]));
  const sections = HELP_GROUPS.map(({ title, commands }) => section(title, commands.map((name) => byName.get(name)!)));
  return [
    `taskdag ${version}: task graphs for teams of agents. Every command prints one JSON value.`,
    '',
    '  $ taskdag [--project <path>] [--as <agent>] [--no-warnings] <command> [options]',
    '',
    ...sections,
    'Run `taskdag help <command>` (or `taskdag <command> --help`) for its options and examples.',
    'Global flags, before the command: --project <path> picks the checkout, --as <agent> the identity',
    '(else TASKDAG_AGENT), and --no-warnings drops the warnings of a result.',
    '',
  ].join('\n');
}

/** `taskdag help server`: the commands whose name starts with one word. */
export function groupHelp(word: string, declarations: readonly CommandDeclaration[]): string {
  return [section(`taskdag ${word} ...`, declarations), 'Run `taskdag help <command>` for its options and examples.', ''].join('\n');
}

/**
 * One command's page, generated from its declaration: its usage line (required arguments bare,
 * optional ones in brackets), its positionals, its required and optional flags with value
 * placeholders by kind, its details and its examples. It lists only what the command takes.
 */
export function commandHelp(declaration: CommandDeclaration): string {
  const fields = Object.entries(commandLineArgs(declaration)) as Fields;
  const positionals = fields.filter(([, field]) => field.positional);
  const flags = fields.filter(([, field]) => !field.positional);
  const required = flags.filter(([, field]) => field.required);
  const optional = flags.filter(([, field]) => !field.required);
  const usage = [`$ taskdag ${declaration.name}`, ...positionals.map(positionalUsage), ...required.map(flagUsage), ...(optional.length > 0 ? ['[options]'] : [])];
  return [
    `taskdag ${declaration.name}: ${declaration.summary}`,
    '',
    'Usage',
    '',
    `  ${usage.join(' ')}`,
    '',
    ...table('Arguments', positionals.map(([key, field]) => [spellingOf(key, field), field.description + (field.required ? '' : ' (optional)')])),
    ...table('Required', required.map(([key, field]) => [flagUsage([key, field]), field.description])),
    ...table('Options', optional.map(([key, field]) => [flagUsage([key, field]), field.description])),
    ...(declaration.details === undefined ? [] : ['Details', '', ...wrap(declaration.details, '  '), '']),
    ...(declaration.examples.length === 0 ? [] : ['Examples', '', ...declaration.examples.flatMap(([label, line]) => [`  ${label}`, `    $ ${line.replace(/\$0/g, 'taskdag')}`, ''])]),
  ].join('\n');
}

function section(title: string, declarations: readonly CommandDeclaration[]): string {
  const lines = declarations.flatMap((declaration) => {
    const positionals = (Object.entries(declaration.args) as Fields).filter(([, field]) => field.positional);
    return [`  taskdag ${[declaration.name, ...positionals.map(positionalUsage)].join(' ')}`, `      ${declaration.summary}`];
  });
  return [title, '', ...lines, ''].join('\n');
}

function positionalUsage([key, field]: [string, Argument<unknown>]): string {
  const spelled = spellingOf(key, field);
  return field.required ? spelled : `[${spelled}]`;
}

function flagUsage([key, field]: [string, Argument<unknown>]): string {
  const placeholder = placeholderOf(field);
  return placeholder === null ? spellingOf(key, field) : `${spellingOf(key, field)} ${placeholder}`;
}

/** A titled two-column table, or nothing when it has no rows. */
function table(title: string, rows: [string, string][]): string[] {
  if (rows.length === 0) return [];
  const left = Math.max(...rows.map(([name]) => name.length)) + 4;
  return [title, '', ...rows.flatMap(([name, description]) => wrap(description, ' '.repeat(left + 2)).map((line, index) => (index === 0 ? `  ${name.padEnd(left)}${line.trimStart()}` : line))), ''];
}

/** Words of `text` in lines of at most WIDTH columns, each starting with `indent`. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/)) {
    if (line.length > indent.length && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line += line.length > indent.length ? ` ${word}` : word;
  }
  lines.push(line);
  return lines;
}
