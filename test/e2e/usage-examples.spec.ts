import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { allCommands } from '../../entrypoints/cli/commands.js';
import { BINARY, SERVES_UNTIL_STOPPED, Sandbox } from '../support/cli.js';
import { allowPlugins, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { login, request, spawnServer } from '../support/server-process.js';
import { runInTerminal } from '../support/terminal.js';

/**
 * Every example in every command's `--help` is a line that runs. The examples of all registered
 * commands, taken in registration order, form one story in one project: `init`, the initiative
 * `billing`, tasks `T-invoice-schema` and `T-invoice-api` (blocked by the first), gate `G-schema`
 * and its successor, and so on. A new command's examples continue that story.
 */
describe('usage examples (every example in --help runs)', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
    // The batch examples apply a plan file the user wrote; this is the one the story uses.
    const plan = { operations: [{ op: 'add-note', args: { id: 'T-invoice-api', text: 'Noted from plan.json' } }] };
    writeFileSync(path.join(sandbox.checkout, 'plan.json'), JSON.stringify(plan));
    // The plugin examples install the example plugins, kept in the checkout as a project would.
    cpSync(path.resolve(__dirname, '../../../examples/plugins'), path.join(sandbox.checkout, 'plugins'), { recursive: true });
  });
  let server: LinkedServer | null = null;
  after(async () => {
    await server?.close();
    sandbox.remove();
  });

  it('every command has at least one example', () => {
    const bare = allCommands().filter((command) => (command.usage?.examples ?? []).length === 0).map((command) => command.paths![0]!.join(' '));
    expect(bare).to.deep.equal([]);
  });

  it('the README or a page of docs/ shows every command with an example', () => {
    const docs = path.resolve(__dirname, '../../../docs');
    const pages = ['../README.md', ...readdirSync(docs).filter((name) => name.endsWith('.md'))].map((name) => readFileSync(path.join(docs, name), 'utf8')).join('\n');
    const undocumented = allCommands().map((command) => command.paths![0]!.join(' ')).filter((name) => !shownWithExample(pages, name));
    expect(undocumented).to.deep.equal([]);
  });

  it('runs every example, in registration order, with exit 0 and one JSON value', async function () {
    // About a hundred command lines, each a process: the story outgrows mocha's default bound.
    this.timeout(180_000);
    const taskdag = `'${process.execPath}' '${BINARY}'`;
    for (const command of allCommands()) {
      const name = command.paths![0]!.join(' ');
      if (AGAINST_A_SERVER.has(name)) server ??= await serverFor(sandbox);
      for (const [label, example] of command.usage?.examples ?? []) {
        // The remote examples name a server on this machine: the story's server answers for both origins.
        const line = server ? example.replace(/http:\/\/127\.0\.0\.1:8080/g, server.origin).replace(/http:\/\/127\.0\.0\.1:8081/g, server.origin.replace('127.0.0.1', 'localhost')) : example;
        if (name === 'login') {
          const typed = await runInTerminal(sandbox, line.replace(/^\$0 /, '').split(' '), server!.password);
          expect(typed.code, `login example "${label}": ${line}\n${typed.stdout}${typed.terminal}`).to.equal(0);
          continue;
        }
        const shellLine = line.replace(/\$0 /g, `${taskdag} `);
        // Its example must print its ready line, then stop cleanly on SIGTERM.
        if (SERVES_UNTIL_STOPPED.has(command.paths![0]!.join(' '))) {
          await expectToServe(shellLine, sandbox, `${command.paths![0]!.join(' ')} example "${label}": ${line}`);
          continue;
        }
        // Examples are shell lines (quotes, JSON in single quotes), so a shell runs them.
        const result = spawnSync('/bin/sh', ['-c', line.replace(/\$0 /g, `${taskdag} `)], {
          cwd: sandbox.checkout,
          env: sandbox.env() as NodeJS.ProcessEnv,
          encoding: 'utf8',
          timeout: 20_000,
        });
        const where = `${command.paths![0]!.join(' ')} example "${label}": ${line}\n${result.stdout}${result.stderr}`;
        expect(result.status, where).to.equal(0);
        // `mcp` serves MCP until its input closes; `onboard` appends Markdown to a file.
        if (!OWN_OUTPUT.has(command.paths![0]!.join(' '))) expect(() => JSON.parse(result.stdout), where).not.to.throw();
      }
    }
  });
});

/** A shell line (`$ taskdag name ...`) or a table's code span (`` `taskdag name ...` ``) shows the command at work. */
function shownWithExample(pages: string, name: string): boolean {
  return pages.includes(`$ taskdag ${name}`) || pages.includes(`\`taskdag ${name} `) || pages.includes(`\`taskdag ${name}\``);
}

/** Commands that, on success, print something else than one JSON value. */
const OWN_OUTPUT = new Set(['mcp', 'onboard']);

/**
 * Commands whose examples talk to a server: the story links its checkout to a real `server run`
 * on 127.0.0.1 that holds the story's project, pristine (as remote `init` leaves it), and types
 * the password at a real terminal for `login`.
 */
const AGAINST_A_SERVER = new Set(['link', 'login', 'push', 'pull', 'logout']);

async function serverFor(sandbox: Sandbox): Promise<LinkedServer> {
  const server = await startLinkedServer();
  // The story's project carries the example plugins: its server's operator runs them (docs/plugins.md).
  const examples = path.resolve(__dirname, '../../../examples/plugins');
  await allowPlugins(server, { 'restore-guard': path.join(examples, 'restore-guard.js'), 'wip-limit': path.join(examples, 'wip-limit.js') });
  const { project_id } = JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8'));
  const { bearer } = (await login(server.origin, server.password)).json;
  const provisioned = await request(server.origin, 'POST', `/v1/projects/${project_id}/ops/init`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args: {}, agent: null } });
  expect(provisioned.status).to.equal(200);
  return server;
}

async function expectToServe(shellLine: string, sandbox: Sandbox, where: string): Promise<void> {
  const server = await spawnServer('/bin/sh', ['-c', shellLine], { env: sandbox.env(), cwd: sandbox.checkout });
  const stopped = await server.stop();
  expect(stopped, `${where}\n${server.output().stderr}`).to.deep.equal({ code: 0, signal: null });
}
