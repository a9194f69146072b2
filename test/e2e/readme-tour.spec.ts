import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { docCommands } from '../support/doc-commands.js';
import { freePort } from '../support/linked-server.js';
import { exchangeThenClose } from '../support/mcp.js';
import { envFileEntries, spawnServer, type RunningServer } from '../support/server-process.js';
import { runInTerminal } from '../support/terminal.js';

const README = path.resolve(__dirname, '../../../README.md');

/** The address the README's server listens on (server init's default port), and the local board's port. */
const README_PORT = 7407;

/**
 * Walks the README's tour as a newcomer would, in a sandbox: one directory for the whole tour,
 * `cd` moving between its checkouts, `taskdag` the built binary. The machine's own things are the
 * only changes: the server listens on a free port instead of 7407, `login` gets the password
 * typed at a real terminal, `taskdag ui` gets a free port and opens no browser, `taskdag mcp` is
 * driven by an MCP client that calls a tool. A line the walk does not know fails the test, so the
 * README cannot show a command no test runs.
 */
describe('README tour (every command runs, in order)', function () {
  this.timeout(180_000);
  let sandbox: Sandbox;
  let server: RunningServer | null = null;
  before(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
  });
  after(async () => {
    await server?.stop('SIGKILL');
    sandbox.remove();
  });

  it('runs the local loop, a server with two linked checkouts, the board and MCP', async () => {
    const commands = docCommands(README);
    expect(commands.length).to.be.above(20);
    const port = await freePort();
    const taskdag = `'${process.execPath}' '${BINARY}'`;
    const local = (line: string) =>
      line.replaceAll(`127.0.0.1:${README_PORT}`, `127.0.0.1:${port}`).replace(/(^|[\s(])taskdag(?= )/g, `$1${taskdag}`);
    let cwd = sandbox.checkout;
    let envFile: string | null = null;
    /** What each `taskdag status` printed, and in which checkout. */
    const statuses: { checkout: string; status: any }[] = [];
    const shell = (line: string) => spawnSync('/bin/sh', ['-c', line], { cwd, env: sandbox.env() as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000 });
    /** The words of a `taskdag ...` line, its comment left out. */
    const words = (line: string) => line.replace(/\s+#.*$/, '').split(/\s+/).slice(1);

    for (const original of commands) {
      const where = `README: ${original}`;
      let match: RegExpExecArray | null;
      if ((match = /^cd (\S+)$/.exec(original))) {
        cwd = path.resolve(cwd, match[1]!);
        expect(cwd.startsWith(sandbox.checkout), where).to.equal(true);
      } else if (/^(mkdir|cp) /.test(original)) {
        const result = shell(original);
        expect(result.status, `${where}\n${result.stderr}`).to.equal(0);
      } else if ((match = /^taskdag server init --root (\S+)/.exec(original))) {
        const result = shell(`${local(original.replace(/\s+#.*$/, ''))} --port ${port}`);
        expect(result.status, `${where}\n${result.stdout}${result.stderr}`).to.equal(0);
        envFile = JSON.parse(result.stdout).files.env;
      } else if (/^\(set -a && \. \S+ && set \+a && exec taskdag server run /.test(original)) {
        expect(server, 'a second server').to.equal(null);
        server = await spawnServer('/bin/sh', ['-c', local(original)], { cwd, env: sandbox.env() });
        expect(server.port).to.equal(port);
      } else if (/^taskdag login(\s|$)/.test(original)) {
        const typed = await runInTerminal(sandbox, words(original), envFileEntries(envFile!).TASKDAG_SERVER_PASSWORD!, { cwd });
        expect(typed.code, `${where}\n${typed.stdout}${typed.terminal}`).to.equal(0);
      } else if (/^taskdag ui(\s|$)/.test(original)) {
        const board = await spawnServer('/bin/sh', ['-c', `${local(original.replace(/\s+#.*$/, ''))} --port 0 --open=false`], { cwd, env: sandbox.env() });
        expect(await board.stop(), where).to.deep.equal({ code: 0, signal: null });
      } else if (/^taskdag mcp(\s|$)/.test(original)) {
        const { code, answers } = await exchangeThenClose(BINARY, words(original), { cwd, env: sandbox.env() }, [{ method: 'tools/call', params: { name: 'status', arguments: {} } }]);
        expect(code, where).to.equal(0);
        expect(answers[1].result.isError ?? false, JSON.stringify(answers[1])).to.equal(false);
      } else if (/^taskdag .*>> \S+$/.test(original.replace(/\s+#.*$/, ''))) {
        const result = shell(local(original));
        expect(result.status, `${where}\n${result.stderr}`).to.equal(0);
      } else if (/^taskdag /.test(original)) {
        const result = shell(local(original));
        expect(result.status, `${where}\n${result.stdout}${result.stderr}`).to.equal(0);
        expect(() => JSON.parse(result.stdout), where).not.to.throw();
        if (/^taskdag status(\s|$)/.test(original)) statuses.push({ checkout: path.basename(cwd), status: JSON.parse(result.stdout) });
      } else {
        expect.fail(`the README shows a command no test runs: ${original}`);
      }
    }
    // What the tour's comments promise: the accepted task unblocked the next, and both claims show from bob's checkout.
    const ids = (tasks: { id: string; claim?: { by: string } | null }[]) => tasks.map((task) => `${task.id}:${task.claim?.by ?? '-'}`);
    const [before, after] = statuses.filter((entry) => entry.checkout === 'app').map((entry) => entry.status);
    expect(ids(before.tasks.ready)).to.deep.equal(['T-schema:-']);
    expect(before.tasks.blocked[0].blockers.direct).to.deep.equal(['T-schema']);
    expect(ids(after.tasks.ready)).to.deep.equal(['T-api:-']);
    const team = statuses.find((entry) => entry.checkout === 'bob')!.status;
    expect(ids(team.tasks.in_progress).sort()).to.deep.equal(['T-invoice:alice', 'T-receipt:bob']);
    expect(await server!.stop(), 'the server stops cleanly').to.deep.equal({ code: 0, signal: null });
    server = null;
  });
});
