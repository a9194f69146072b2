import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../entrypoints/cli/commands.js';
import { BINARY, Sandbox } from '../support/cli.js';
import { spawnServer } from '../support/server-process.js';

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
  });
  after(() => sandbox.remove());

  it('every command has at least one example', () => {
    const bare = COMMANDS.filter((command) => (command.usage?.examples ?? []).length === 0).map((command) => command.paths![0]!.join(' '));
    expect(bare).to.deep.equal([]);
  });

  it('the README shows every command with an example', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const undocumented = COMMANDS.map((command) => command.paths![0]!.join(' ')).filter((name) => !readme.includes(`$ taskdag ${name}`));
    expect(undocumented).to.deep.equal([]);
  });

  it('runs every example, in registration order, with exit 0 and one JSON value', async () => {
    const taskdag = `'${process.execPath}' '${BINARY}'`;
    for (const command of COMMANDS) {
      for (const [label, line] of command.usage?.examples ?? []) {
        const shellLine = line.replace(/\$0 /g, `${taskdag} `);
        if (LONG_RUNNING.has(command.paths![0]!.join(' '))) {
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

/** Commands that, on success, print something else than one JSON value. */
const OWN_OUTPUT = new Set(['mcp', 'onboard']);

/** Commands whose example runs until stopped: it must print its ready line, then stop cleanly on SIGTERM. */
const LONG_RUNNING = new Set(['server run']);

async function expectToServe(shellLine: string, sandbox: Sandbox, where: string): Promise<void> {
  const server = await spawnServer('/bin/sh', ['-c', shellLine], { env: sandbox.env(), cwd: sandbox.checkout });
  const stopped = await server.stop();
  expect(stopped, `${where}\n${server.output().stderr}`).to.deep.equal({ code: 0, signal: null });
}
