import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { envFileEntries, login, serverProcessesIn } from '../support/server-process.js';
import { ensureSystemdAnalyze, verifyUnit } from '../support/systemd.js';

const DOC = path.resolve(__dirname, '../../../docs/operating.md');

/** Every `$ ` line of the doc's sh blocks, in order. */
function docCommands(): string[] {
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) => block.split('\n').filter((line) => line.startsWith('$ ')).map((line) => line.slice(2)));
}

/**
 * Walks docs/operating.md's procedure as an operator would, in a sandbox: /srv/ becomes the
 * sandbox's, `taskdag` the built binary, and the service manager is played by the test (start
 * = the unit's ExecStart= with its EnvironmentFile=, stop = SIGTERM and a clean exit). A command
 * the walk does not know fails the test, so the doc cannot show a command no test runs.
 */
describe('docs/operating.md (every command runs)', function () {
  this.timeout(600_000);
  let sandbox: Sandbox;
  /** The servers running: the unit's, and one started by hand. */
  const running = new Map<'unit' | 'by-hand', { child: ChildProcess; port: number }>();
  before(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
    ensureSystemdAnalyze();
  });
  after(() => {
    for (const { child } of running.values()) child.kill('SIGKILL');
    sandbox.remove();
  });

  const local = (line: string) =>
    line.replaceAll(' /srv/', ` ${sandbox.root}/srv/`).replace(/(^|[\s(])taskdag(?= )/g, `$1'${process.execPath}' '${BINARY}'`);

  async function startProcess(which: 'unit' | 'by-hand', command: string, args: string[], env: Record<string, string>, envFile: string): Promise<void> {
    expect(running.has(which), `the ${which} server is running already`).to.equal(false);
    const child = spawn(command, args, { env: sandbox.env(env) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stderr!.on('data', (chunk) => (output += chunk));
    const line = await new Promise<string>((resolve) => {
      child.stdout!.once('data', (chunk) => resolve(String(chunk)));
      child.once('exit', () => resolve(''));
    });
    expect(line, output).to.match(/^\{"ok":true,/);
    const port = JSON.parse(line).port;
    running.set(which, { child, port });
    const answer = await login(`http://127.0.0.1:${port}`, envFileEntries(envFile).TASKDAG_SERVER_PASSWORD!);
    expect(answer.status, answer.text).to.equal(200);
  }

  async function stopProcess(which: 'unit' | 'by-hand'): Promise<void> {
    expect(running.has(which), `the ${which} server is not running`).to.equal(true);
    const { child } = running.get(which)!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The server itself, as systemd's KillSignal= or Ctrl-C reaches it (a shell before it passes on its status).
    for (const pid of serverProcessesIn(child.pid!)) process.kill(pid, 'SIGTERM');
    expect(await exited).to.equal(0);
    running.delete(which);
  }

  function unitOf(name: string): { execStart: string[]; envFile: string } {
    const unitFile = path.join(sandbox.root, 'srv', 'taskdag', name);
    const unit = readFileSync(unitFile, 'utf8');
    return { execStart: /^ExecStart=(.*)$/m.exec(unit)![1]!.split(' '), envFile: /^EnvironmentFile=(.*)$/m.exec(unit)![1]! };
  }

  it('runs the whole procedure: setup, install, start, stop, rotation, recovery, and a server by hand', async () => {
    const commands = docCommands();
    expect(commands.length).to.be.above(15);
    for (const original of commands) {
      const line = local(original);
      let match: RegExpExecArray | null;
      if ((match = /^sudo chown (-R )?taskdag: /.exec(original))) {
        continue; // the service user need not exist here; init's output carries these lines (test/e2e/server-doctor.spec.ts)
      } else if ((match = /^sudo install -m 0644 (\S+) \/etc\/systemd\/system\/taskdag-server\.service$/.exec(line))) {
        const verified = verifyUnit(match[1]!);
        expect(verified.status, verified.output).to.equal(0);
      } else if (original === 'sudo systemctl daemon-reload') {
        continue;
      } else if ((match = /^sudo systemctl (enable --now|start) (\S+)$/.exec(original))) {
        const unit = unitOf(match[2]!);
        await startProcess('unit', unit.execStart[0]!, unit.execStart.slice(1), envFileEntries(unit.envFile), unit.envFile);
      } else if (/^sudo systemctl stop /.test(original)) {
        await stopProcess('unit');
      } else if (/^systemctl status /.test(original)) {
        expect(running.get('unit')?.child.exitCode).to.equal(null);
      } else if (/^(cp|mv) /.test(original)) {
        const result = spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
        expect(result.status, `${original}: ${result.stderr}`).to.equal(0);
      } else if (/^\(set -a && \. (\S+) /.test(original)) {
        await startProcess('by-hand', '/bin/sh', ['-c', line], {}, /^\(set -a && \. (\S+) /.exec(line)![1]!);
      } else if (/^taskdag /.test(original)) {
        const result = spawnSync('/bin/sh', ['-c', line], { cwd: sandbox.checkout, env: sandbox.env() as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
        expect(result.status, `${original}\n${result.stdout}${result.stderr}`).to.equal(0);
        expect(() => JSON.parse(result.stdout), original).not.to.throw();
      } else {
        expect.fail(`docs/operating.md shows a command no test runs: ${original}`);
      }
    }
    for (const which of [...running.keys()]) await stopProcess(which);
  });
});
