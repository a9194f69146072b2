import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { docSteps, type DocStep } from '../support/doc-commands.js';
import { freePort } from '../support/linked-server.js';
import { exchangeThenClose } from '../support/mcp.js';
import { envFileEntries, spawnServer, type RunningServer } from '../support/server-process.js';
import { runInTerminal } from '../support/terminal.js';

const README = path.resolve(__dirname, '../../../README.md');
const AGENT_LOOP = path.resolve(__dirname, '../../../docs/agent-loop.md');
const COMMANDS = path.resolve(__dirname, '../../../docs/commands.md');

/** The address the README's server listens on (server init's default port), and the local board's port. */
const README_PORT = 7407;

/** Walks the README's tour and the pages that tell one story, as a reader would (DocWalk, below). */
describe('README tour and the walkable docs: agent-loop.md, commands.md (every command runs, in order)', function () {
  this.timeout(180_000);
  const walks: DocWalk[] = [];
  const walkIn = async (sandbox: Sandbox) => {
    walks.push(new DocWalk(sandbox, await freePort()));
    return walks.at(-1)!;
  };
  after(async () => {
    for (const walk of walks) {
      await walk.server?.stop('SIGKILL');
      walk.sandbox.remove();
    }
  });

  it('runs the local loop, a server with two linked checkouts, the board and MCP', async () => {
    const walk = await walkIn(new Sandbox());
    await walk.steps(docSteps(README));
    expect(walk.walked).to.be.above(20);
    const statuses = walk.statuses;
    // What the tour's comments promise: the accepted task unblocked the next, and both claims show from bob's checkout.
    const ids = (tasks: { id: string; claim?: { by: string } | null }[]) => tasks.map((task) => `${task.id}:${task.claim?.by ?? '-'}`);
    const [before, after] = statuses.filter((entry) => entry.checkout === 'app').map((entry) => entry.status);
    expect(ids(before.tasks.ready)).to.deep.equal(['T-schema:-']);
    expect(before.tasks.blocked[0].blockers.direct).to.deep.equal(['T-schema']);
    expect(ids(after.tasks.ready)).to.deep.equal(['T-api:-']);
    const team = statuses.find((entry) => entry.checkout === 'bob')!.status;
    expect(ids(team.tasks.in_progress).sort()).to.deep.equal(['T-invoice:alice', 'T-receipt:bob']);
    expect(await walk.server!.stop(), 'the server stops cleanly').to.deep.equal({ code: 0, signal: null });
    walk.server = null;
  });

  it('runs docs/agent-loop.md, each refusal it shows refused with its code', async () => {
    const walk = await walkIn(new Sandbox());
    await walk.steps(docSteps(AGENT_LOOP));
    expect(walk.walked).to.be.above(15);
    expect(walk.refusals).to.deep.equal(['NOT_READY', 'INDEPENDENT_REVIEW_REQUIRED', 'CLAIM_FENCED']);
    // The lifecycle and read commands of docs/commands.md continue the agent loop's project.
    const lifecycle = docSteps(COMMANDS, { from: '## Lifecycle and read commands', to: '## Snapshots, restore, batch and migrate' });
    expect(lifecycle.length).to.be.above(15);
    await walk.steps(lifecycle);
    expect(walk.refusals.slice(3)).to.deep.equal(['NOT_OWNER', 'REVISION_CONFLICT']);
  });

  it('runs the foundation commands of docs/commands.md, one story from init, each refusal with its code', async () => {
    const walk = await walkIn(new Sandbox());
    const foundation = docSteps(COMMANDS, { from: '## Commands and global flags', to: '## Lifecycle and read commands' });
    await walk.steps(foundation);
    expect(walk.walked).to.equal(foundation.length).and.to.be.above(12);
    expect(walk.refusals).to.deep.equal(['SELF_EDGE', 'UNKNOWN_COMMAND', 'INVALID_ARGUMENT']);
  });

  it('leaves no $ line of docs/commands.md out of a walk', () => {
    const walked = [
      { from: '## Commands and global flags', to: '## Lifecycle and read commands' },
      { from: '## Lifecycle and read commands', to: '## Snapshots, restore, batch and migrate' },
    ];
    expect(walked.flatMap((section) => docSteps(COMMANDS, section))).to.deep.equal(docSteps(COMMANDS));
  });
});

/**
 * Plays a reader at a shell, line by line: one directory for the whole page, `cd` moving between
 * its checkouts, `taskdag` the built binary. The machine's own things are the only changes: the
 * server listens on a free port instead of 7407, `login` gets the password typed at a real
 * terminal, `taskdag ui` gets a free port and opens no browser, `taskdag mcp` is driven by an MCP
 * client that calls a tool. A line it does not know fails, so a page cannot show a command no
 * test runs; a line the page shows refused must be refused with that code.
 */
class DocWalk {
  server: RunningServer | null = null;
  walked = 0;
  /** The codes of the refusals the page showed, as they happened. */
  readonly refusals: string[] = [];
  /** What each `taskdag status` printed, and in which checkout. */
  readonly statuses: { checkout: string; status: any }[] = [];
  private cwd: string;
  private envFile: string | null = null;

  constructor(
    readonly sandbox: Sandbox,
    private readonly port: number,
  ) {
    mkdirSync(sandbox.checkout, { recursive: true });
    this.cwd = sandbox.checkout;
  }

  async steps(steps: readonly DocStep[]): Promise<void> {
    for (const step of steps) {
      await this.step(step);
      this.walked++;
    }
  }

  private local(line: string): string {
    const taskdag = `'${process.execPath}' '${BINARY}'`;
    return line.replaceAll(`127.0.0.1:${README_PORT}`, `127.0.0.1:${this.port}`).replace(/(^|[\s(])taskdag(?= )/g, `$1${taskdag}`);
  }

  private shell(line: string) {
    return spawnSync('/bin/sh', ['-c', line], { cwd: this.cwd, env: this.sandbox.env() as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000 });
  }

  private async step({ command: original, failsWith }: DocStep): Promise<void> {
    const where = `${original}`;
    /** The words of a `taskdag ...` line, its comment left out. */
    const words = (line: string) => line.replace(/\s+#.*$/, '').split(/\s+/).slice(1);
    const bare = original.replace(/\s+#.*$/, '');
    let match: RegExpExecArray | null;
    if ((match = /^cd (\S+)$/.exec(original))) {
      this.cwd = path.resolve(this.cwd, match[1]!);
      expect(this.cwd.startsWith(this.sandbox.checkout), where).to.equal(true);
    } else if (/^(mkdir|cp|node -e) /.test(original)) {
      const result = this.shell(original);
      expect(result.status, `${where}\n${result.stderr}`).to.equal(0);
    } else if (/^taskdag server init --root \S+/.test(original)) {
      const result = this.shell(`${this.local(bare)} --port ${this.port}`);
      expect(result.status, `${where}\n${result.stdout}${result.stderr}`).to.equal(0);
      this.envFile = JSON.parse(result.stdout).files.env;
    } else if (/^\(set -a && \. \S+ && set \+a && exec taskdag server run /.test(original)) {
      expect(this.server, 'a second server').to.equal(null);
      this.server = await spawnServer('/bin/sh', ['-c', this.local(original)], { cwd: this.cwd, env: this.sandbox.env() });
      expect(this.server.port).to.equal(this.port);
    } else if (/^taskdag login(\s|$)/.test(original)) {
      const typed = await runInTerminal(this.sandbox, words(original), envFileEntries(this.envFile!).TASKDAG_SERVER_PASSWORD!, { cwd: this.cwd });
      expect(typed.code, `${where}\n${typed.stdout}${typed.terminal}`).to.equal(0);
    } else if (/^taskdag ui(\s|$)/.test(original)) {
      const board = await spawnServer('/bin/sh', ['-c', `${this.local(bare)} --port 0 --open=false`], { cwd: this.cwd, env: this.sandbox.env() });
      expect(await board.stop(), where).to.deep.equal({ code: 0, signal: null });
    } else if (/^taskdag mcp(\s|$)/.test(original)) {
      const { code, answers } = await exchangeThenClose(BINARY, words(original), { cwd: this.cwd, env: this.sandbox.env() }, [{ method: 'tools/call', params: { name: 'status', arguments: {} } }]);
      expect(code, where).to.equal(0);
      expect(answers[1].result.isError ?? false, JSON.stringify(answers[1])).to.equal(false);
    } else if (/^taskdag .*>> \S+$/.test(bare)) {
      const result = this.shell(this.local(original));
      expect(result.status, `${where}\n${result.stderr}`).to.equal(0);
    } else if (/^taskdag /.test(original)) {
      const result = this.shell(this.local(original));
      // The exit statuses of docs/commands.md's table: 2 for an unknown command, 1 for any other refusal.
      const status = failsWith === 'UNKNOWN_COMMAND' ? 2 : failsWith ? 1 : 0;
      expect(result.status, `${where}\n${result.stdout}${result.stderr}`).to.equal(status);
      const printed = JSON.parse(result.stdout);
      if (failsWith) {
        expect(printed.error.code, where).to.equal(failsWith);
        this.refusals.push(failsWith);
      }
      if (/^taskdag status(\s|$)/.test(original)) this.statuses.push({ checkout: path.basename(this.cwd), status: printed });
    } else {
      expect.fail(`the page shows a command no test runs: ${original}`);
    }
  }
}
