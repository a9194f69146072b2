import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { flagOf, placeholderOf } from '../../application/args.js';
import { commandDeclarations } from '../../entrypoints/cli/commands.js';
import { commandLineArgs, type CommandDeclaration } from '../../entrypoints/cli/declared-command.js';
import { HELP_GROUPS } from '../../entrypoints/cli/help.js';
import { main } from '../../entrypoints/cli/main.js';
import { Sandbox } from '../support/cli.js';

/** The lines of a page's titled section (`Required`, `Options`), up to the next blank line after its rows. */
function sectionOf(page: string, title: string): string[] {
  const lines = page.split('\n');
  const start = lines.indexOf(title);
  if (start < 0) return [];
  const end = lines.indexOf('', start + 2);
  return lines.slice(start + 2, end < 0 ? undefined : end);
}

/** The flags a table lists, each with what follows it on its line. */
function listedFlags(rows: string[]): Map<string, string> {
  return new Map(rows.filter((row) => row.startsWith('  --')).map((row) => [row.trim().split(' ')[0]!, row.trim()]));
}

function expectOwnPage(page: string, declaration: CommandDeclaration): void {
  const name = declaration.name;
  const spec = commandLineArgs(declaration);
  expect(page.split('\n')[0], name).to.equal(`taskdag ${name}: ${declaration.summary}`);
  expect(page, name).not.to.include('#0');
  const usage = page.split('\n').find((line) => line.startsWith('  $ taskdag '))!;
  expect(usage, name).to.match(new RegExp(`^  \\$ taskdag ${name}( |$)`));
  const required = listedFlags(sectionOf(page, 'Required'));
  const optional = listedFlags(sectionOf(page, 'Options'));
  // Only the flags it takes, each once, under Required exactly when it is required.
  const flags = Object.entries(spec).filter(([, field]) => !field.positional);
  expect([...required.keys(), ...optional.keys()].sort(), name).to.deep.equal(flags.map(([key]) => flagOf(key)).sort());
  for (const [key, field] of flags) {
    const flag = flagOf(key);
    const placeholder = placeholderOf(field);
    const row = (field.required ? required : optional).get(flag);
    expect(row, `${name} ${flag} under ${field.required ? 'Required' : 'Options'}`).to.be.a('string');
    if (placeholder !== null) expect(row, `${name} ${flag}`).to.match(/^--[\w-]+ <[^>]+>/);
    // A required flag is in the usage line as it is typed, not in brackets.
    if (field.required) expect(usage, `${name} ${flag}`).to.include(placeholder === null ? ` ${flag}` : ` ${flag} ${placeholder}`);
  }
  expect(required.has('--as') || optional.has('--as'), `${name} lists --as`).to.equal(declaration.needsAgent || declaration.usesAgent === true);
  // Positionals: required bare, optional in brackets.
  for (const [key, field] of Object.entries(spec).filter(([, field]) => field.positional)) {
    const spelled = field.positional === 'rest' ? `<${key}...>` : `<${key}>`;
    expect(usage, `${name} ${spelled}`).to.include(field.required ? ` ${spelled}` : ` [${spelled}]`);
    if (field.required) expect(usage, `${name} ${spelled}`).not.to.include(`[${spelled}]`);
  }
  for (const [, line] of declaration.examples) expect(page, name).to.include(`$ ${line.replace(/\$0/g, 'taskdag')}`);
}

async function helpInProcess(sandbox: Sandbox, argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const sink = { write: (text: string) => (stdout += text) };
  const code = await main({ argv, cwd: sandbox.checkout, env: sandbox.env(), stdin: Readable.from([]), stdout: sink, stderr: sink as unknown as NodeJS.WritableStream });
  return { code, stdout };
}

describe('help (generated from the declarations)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.remove());

  it('every command prints its own page for --help and for help <command>, touching nothing', async () => {
    // In process, every command: the page is the program's own; the binary is run on a few below.
    for (const declaration of commandDeclarations()) {
      const words = declaration.name.split(' ');
      const [flagged, spelled] = [await helpInProcess(sandbox, [...words, '--help']), await helpInProcess(sandbox, ['help', ...words])];
      expect(flagged.code, declaration.name).to.equal(0);
      expect(spelled, declaration.name).to.deep.equal(flagged);
      expectOwnPage(flagged.stdout, declaration);
    }
    for (const words of [['server', 'run'], ['server', 'doctor'], ['plugin', 'list'], ['add-task']]) {
      const result = await sandbox.run([...words, '--help']);
      expect(result.code).to.equal(0);
      expect(result.stdout.split('\n')[0]).to.match(new RegExp(`^taskdag ${words.join(' ')}: `));
    }
    expect(existsSync(path.join(sandbox.checkout, '.taskdag.json')), 'help created a project').to.equal(false);
  });

  it('shows placeholders by kind: <text>, <id>, <n>, <a,b>, the choices, and required positionals bare', async () => {
    const addTask = (await sandbox.run(['add-task', '--help'])).stdout;
    expect(addTask).to.include('$ taskdag add-task [<id>] --initiative <text> --title <text> --body <text> --acceptance <text> --blocked-by <id,id> --as <agent> [options]');
    expect(addTask).to.include('--tags <a,b>').and.not.to.include('--supersedes');
    expect((await sandbox.run(['status', '--help'])).stdout).to.include('--limit <n>').and.to.include('--kind <task|gate|knowledge>').and.to.include('--as <agent>');
    const show = (await sandbox.run(['show', '--help'])).stdout;
    expect(show).to.include('$ taskdag show <id>\n').and.not.to.include('--as');
    expect((await sandbox.run(['add-gate', '--help'])).stdout).to.include('--supersedes <id>');
  });

  it('groups the top level by what people do, every command in exactly one group, and `help` is the same page', async () => {
    const grouped = HELP_GROUPS.flatMap((group) => group.commands);
    expect([...grouped].sort()).to.deep.equal(commandDeclarations().map((declaration) => declaration.name).sort());
    const [page, spelled, asked] = await Promise.all([sandbox.run(['--help']), sandbox.run(['help']), sandbox.run(['help', '--help'])]);
    expect(spelled.stdout).to.equal(page.stdout);
    expect(asked.stdout).to.equal(page.stdout);
    expect(page.stdout).not.to.include('#0');
    const titles = page.stdout.split('\n').filter((line) => HELP_GROUPS.some((group) => group.title === line));
    expect(titles).to.deep.equal(HELP_GROUPS.map((group) => group.title));
    expect(page.stdout.indexOf('taskdag take <id>')).to.be.below(page.stdout.indexOf('taskdag add-node <id>'));
  });

  it('a command word alone shows its commands; help for an unknown command is UNKNOWN_COMMAND with suggestions, exit 2', async () => {
    for (const args of [['server', '--help'], ['help', 'server']]) {
      const group = await sandbox.run(args);
      expect(group.code, args.join(' ')).to.equal(0);
      expect(group.stdout).to.include('taskdag server run <config_path>').and.to.include('taskdag server credential add <name>');
    }
    const unknown = await sandbox.run(['help', 'tkae']);
    expect(unknown.code).to.equal(2);
    expect(unknown.json.error).to.deep.include({ code: 'UNKNOWN_COMMAND', details: { command: 'tkae', suggestions: ['take'] } });
  });
});
